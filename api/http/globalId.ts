/**
 * Relay-style global ids as the reference uses them on the wire: base64 of `<Type>:<id>`
 * (`User:1` → `VXNlcjox`). Clients treat them as opaque and send them back in paths and cursors.
 */
export const toGlobalId = (type: string, id: string): string => Buffer.from(`${type}:${id}`, 'utf8').toString('base64');

/** The id inside a global id of `type`, or null for anything else (other type, not base64, empty id). */
export const fromGlobalId = (type: string, globalId: string): string | null => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(globalId)) return null;
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const prefix = `${type}:`;
  if (!decoded.startsWith(prefix)) return null;
  const id = decoded.slice(prefix.length);
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
};

/** The GlobalID of a read-model row: `<Type>:<rowid>` (docs/reference/rest-facts.md §0.3). */
export const globalIdOf = (type: string, rowid: number): string => toGlobalId(type, String(rowid));

/** The row id inside a GlobalID of `type`, or null when `raw` is something else (then it may be a natural key). */
export const rowidOf = (type: string, raw: string): number | null => {
  const id = fromGlobalId(type, raw);
  return id !== null && /^\d{1,15}$/.test(id) ? Number(id) : null;
};

/** Any GlobalID's type and numeric row id, or null when `raw` is not one. */
export const anyGlobalId = (raw: string): { readonly type: string; readonly id: number } | null => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) return null;
  const m = /^([A-Za-z]+):(\d{1,15})$/.exec(Buffer.from(raw, 'base64').toString('utf8'));
  return m ? { type: m[1]!, id: Number(m[2]) } : null;
};
