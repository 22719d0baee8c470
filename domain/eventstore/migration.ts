/**
 * A versioned schema change. `id` is unique and sortable within its owner ("0001_events").
 * SQL uses unqualified table names, so a projection's migrations can be replayed into a scratch
 * schema when it is rebuilt.
 */
export type Migration = { readonly id: string; readonly sql: string };
