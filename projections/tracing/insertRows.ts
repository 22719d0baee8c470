import { sql, type DatabaseTransactionConnection } from 'slonik';

export type ColumnType = 'int8' | 'int4' | 'text' | 'timestamptz' | 'jsonb';

type Cell = string | number | bigint | null;

/**
 * `INSERT INTO table (columns) SELECT * FROM unnest(one array per column)`: many rows in one
 * statement with one parameter per column, each value parsed once by its own type's input
 * function (no JSON document around the rows to parse first), as close to COPY as a statement
 * gets on both slonik drivers (PGlite's has no COPY FROM STDIN).
 */
export const insertRows = async <R extends { readonly [K in keyof R]: Cell }>(
  tx: DatabaseTransactionConnection,
  table: string,
  columns: readonly (readonly [keyof R & string, ColumnType])[],
  rows: readonly R[],
): Promise<void> => {
  if (rows.length === 0) return;
  const names = sql.join(
    columns.map(([name]) => sql.identifier([name])),
    sql.fragment`, `,
  );
  const arrays = sql.join(
    columns.map(([name, type]) => sql.array(rows.map((r) => r[name]) as never, type)),
    sql.fragment`, `,
  );
  await tx.query(sql.unsafe`INSERT INTO ${sql.identifier([table])} (${names}) SELECT * FROM unnest(${arrays})`);
};
