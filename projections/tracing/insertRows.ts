import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { JsonValue } from '../../domain/tracing/jsonValue.ts';

export type ColumnType = 'int8' | 'int4' | 'text' | 'timestamptz' | 'jsonb';

/**
 * `INSERT INTO table (columns) SELECT … FROM jsonb_to_recordset(rows)`: every row whole, as built
 * by the caller, in one JSON parameter (the rows, or their JSON array text when the caller built it), and nothing computed in SQL. Measured against the other
 * ways of sending many rows through slonik (PGlite's driver has no COPY FROM STDIN), per 3,500
 * spans rows in CPU time (Postgres backend + Node): COPY text 320–370 ms, this 350–380 ms, one
 * array parameter per column with `unnest` 470–510 ms (array literals escape every quote of the
 * JSON, then Postgres unescapes them), `json_to_recordset` 510 ms (it parses each jsonb column
 * twice). BENCHMARKS.md §9.
 */
export const insertRows = async <R extends { readonly [K in keyof R]: JsonValue }>(
  tx: DatabaseTransactionConnection,
  table: string,
  columns: readonly (readonly [keyof R & string, ColumnType])[],
  rows: readonly R[] | { readonly json: string },
): Promise<void> => {
  if ('length' in rows && rows.length === 0) return;
  const names = sql.join(
    columns.map(([name]) => sql.identifier([name])),
    sql.fragment`, `,
  );
  const definitions = sql.join(
    columns.map(([name, type]) => sql.fragment`${sql.identifier([name])} ${sql.identifier([type])}`),
    sql.fragment`, `,
  );
  await tx.query(sql.unsafe`
    INSERT INTO ${sql.identifier([table])} (${names})
    SELECT ${names} FROM jsonb_to_recordset(${'json' in rows ? rows.json : JSON.stringify(rows)}::jsonb) AS x(${definitions})`);
};
