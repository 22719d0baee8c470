/**
 * Unix nanoseconds (decimal string, as in SpanRecord) as an ISO-8601 UTC timestamp with
 * microseconds — what Postgres' timestamptz keeps and Phoenix shows; the last three digits are
 * dropped, not rounded, so a time never moves past the next microsecond.
 */
export const nanosToIsoMicros = (nanos: string): string => {
  const micros = BigInt(nanos) / 1000n;
  const iso = new Date(Number(micros / 1000n)).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000n).padStart(3, '0')}Z`;
};
