/**
 * Timestamps as Phoenix writes them (Python `isoformat()` of a UTC datetime, docs/reference/rest-facts.md §0.7):
 * `2024-01-01T12:00:00+00:00`, with `.123456` only when the microseconds are not zero. Clients
 * sort session turns by comparing these strings, so every time goes out in this one format. It is
 * not order-preserving under every string comparison: phoenix-client's `getSessionTurns` sorts with
 * `localeCompare`, whose collation puts '.' before '+', so a turn on a whole second comes after a
 * later one of the same second (against Phoenix too, which writes the same strings). Our own
 * lists order by time in SQL.
 */
export const isoFromMicros = (micros: bigint): string => {
  const ms = micros / 1000n;
  const fraction = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const seconds = new Date(Number(ms - (((ms % 1000n) + 1000n) % 1000n))).toISOString().slice(0, 19);
  return fraction === 0n ? `${seconds}+00:00` : `${seconds}.${String(fraction).padStart(6, '0')}+00:00`;
};

export const isoFromNanos = (nanos: string): string => isoFromMicros(BigInt(nanos) / 1000n);
