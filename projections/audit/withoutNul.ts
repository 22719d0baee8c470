import type { SerializableValue } from 'slonik';

/**
 * A value for a jsonb parameter with NUL characters taken out of its strings: Postgres text and
 * jsonb hold none, and a crafted event's would otherwise fail the whole batch.
 */
export const withoutNul = (value: unknown): SerializableValue =>
  JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replaceAll('\0', '') : v)));
