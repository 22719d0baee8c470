import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { JsonValue } from '../../domain/base/jsonValue.ts';

export type ColumnType = 'int8' | 'int4' | 'float8' | 'text' | 'timestamptz' | 'jsonb';

/**
 * `INSERT INTO table (columns) SELECT … FROM jsonb_to_recordset(rows)`: every row whole, as built
 * by the caller, in one JSON parameter, and nothing computed in SQL. For the few rows of traces
 * and sessions a batch writes; the spans go through COPY (`copyFromStdin`), which parses each
 * value once where this parses the whole document into jsonb and copies every column out of it
 * again (Postgres time per 3,000 spans rows: 690 ms here, 250–400 ms with COPY; BENCHMARKS.md §10).
 */
export const insertRows = async <R extends { readonly [K in keyof R]: JsonValue }>(
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
  const definitions = sql.join(
    columns.map(([name, type]) => sql.fragment`${sql.identifier([name])} ${sql.identifier([type])}`),
    sql.fragment`, `,
  );
  await tx.query(sql.unsafe`
    INSERT INTO ${sql.identifier([table])} (${names})
    SELECT ${names} FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(${definitions})`);
};
