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
