import { sql, type CommonQueryMethods } from 'slonik';

/**
 * `COPY table (columns) FROM STDIN` through slonik, which has no COPY of its own. The statement
 * goes out as `COPY … FROM STDIN $1` with the rows (COPY text format) as its one parameter; both
 * drivers recognise that shape, which is not valid SQL otherwise, and send the parameter as the
 * COPY data (`ops/database/pgCopyRoute.ts` for PostgreSQL, `ops/database/pgliteDriver.ts` for PGlite). It runs on the
 * connection (and in the transaction) it is called on, like any other statement.
 *
 * Why: the spans projection wrote its rows with `INSERT … SELECT FROM jsonb_to_recordset($1)`,
 * which parses all rows into one jsonb document and then copies every column out of it again;
 * COPY parses each value once. Postgres time for 3,000 spans rows: 690 ms → 250–400 ms
 * (BENCHMARKS.md §10).
 */
export const COPY_FROM_STDIN = /^COPY [^;]+ FROM STDIN \$1$/;

/** The statement text without its data placeholder, as the server expects it. */
export const copyStatement = (text: string): string => text.slice(0, -' $1'.length);

export const copyFromStdin = async (db: CommonQueryMethods, table: string, columns: readonly string[], rows: string): Promise<void> => {
  if (rows.length === 0) return;
  const names = sql.join(
    columns.map((name) => sql.identifier([name])),
    sql.fragment`, `,
  );
  await db.query(sql.unsafe`COPY ${sql.identifier([table])} (${names}) FROM STDIN ${rows}`);
};

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value as a field of COPY's text format: `\N` for null, backslash, newline, CR and tab escaped. */
export const copyField = (value: string | number | bigint | null): string => {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  return /[\\\n\r\t]/.test(value) ? value.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : value;
};

/** A JSON document (from JSON.stringify: no raw control characters) as a COPY field: only its backslashes need doubling. */
export const copyJsonField = (json: string): string => (json.includes('\\') ? json.replaceAll('\\', '\\\\') : json);
