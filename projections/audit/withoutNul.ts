import type { SerializableValue } from 'slonik';

/**
 * A value for a jsonb parameter that Postgres will take: NUL characters taken out of its strings
 * and unpaired UTF-16 surrogates replaced with U+FFFD (text and jsonb hold neither, and a crafted
 * event's `"ev\u0000il\ud800"` would otherwise fail the whole batch and stop the read model).
 */
export const withoutNul = (value: unknown): SerializableValue =>
  JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replaceAll('\0', '').toWellFormed() : v)));
