import { GraphQLScalarType, Kind } from 'graphql';
import { isStorableMs, STORABLE_TIME_RULE } from '../../domain/base/storableTime.ts';

/** Epoch microseconds as `2024-01-01T12:00:00.123456Z`: always six digits, so strings sort as times do. */
export const isoMicros = (micros: bigint): string => {
  const seconds = micros >= 0n ? micros / 1_000_000n : -((-micros + 999_999n) / 1_000_000n);
  const fraction = micros - seconds * 1_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${String(fraction).padStart(6, '0')}Z`;
};

const parse = (value: unknown): string => {
  if (typeof value !== 'string') throw new TypeError('DateTime must be an ISO-8601 string');
  const text = value.trim();
  // A time without a zone is UTC, as in REST.
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) || !text.includes('T') ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) throw new TypeError(`"${value}" is not an ISO-8601 date-time`);
  if (!isStorableMs(ms)) throw new TypeError(`"${value}" is not ${STORABLE_TIME_RULE}`);
  return new Date(ms).toISOString();
};

/**
 * ISO-8601 date-times in UTC with microseconds (spans are timed in microseconds; a JS Date
 * would drop them). Outgoing values are already-formatted strings; incoming ones are parsed and
 * normalised to `Date#toISOString()`.
 */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO-8601 date-time in UTC, e.g. 2024-01-01T12:00:00.123456Z',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: parse,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be an ISO-8601 string');
    return parse(ast.value);
  },
});

/** Unix nanoseconds (decimal string) in the same form, to the microsecond. */
export const isoFromNanosZ = (nanos: string): string => isoMicros(BigInt(nanos) / 1000n);
