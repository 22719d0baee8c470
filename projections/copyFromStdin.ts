import { sql, type CommonQueryMethods } from 'slonik';

/**
 * `COPY table (columns) FROM STDIN` through slonik, which has no COPY of its own. The statement
 * goes out as `COPY … FROM STDIN $1` with a token as its one parameter; both drivers recognise
 * that shape, which is not valid SQL otherwise, take the rows the token stands for
 * (`takeCopyData`) and send them as the COPY data (`ops/database/pgCopyRoute.ts` for PostgreSQL,
 * `ops/database/pgliteDriver.ts` for PGlite). It runs on the connection (and in the transaction)
 * it is called on, like any other statement.
 *
 * Why: the spans projection wrote its rows with `INSERT … SELECT FROM jsonb_to_recordset($1)`,
 * which parses all rows into one jsonb document and then copies every column out of it again;
 * COPY parses each value once. Postgres time for 3,000 spans rows: 690 ms → 250–400 ms
 * (BENCHMARKS.md §10).
 */
export const COPY_FROM_STDIN = /^COPY [^;]+ FROM STDIN \$1$/;

/** The statement text without its data placeholder, as the server expects it. */
export const copyStatement = (text: string): string => text.slice(0, -' $1'.length);

/** COPY data on its way to a driver, by the token that stands for it in the statement. */
const waiting = new Map<string, readonly string[]>();
let lastToken = 0;

/**
 * The COPY data a `copyFromStdin` token stands for, for a driver that met the `COPY … FROM STDIN
 * $1` shape; taken once. Anything else in that place is an error (the statement was not sent by
 * copyFromStdin, or was sent twice).
 */
export const takeCopyData = (token: unknown): readonly string[] => {
  const data = typeof token === 'string' ? waiting.get(token) : undefined;
  if (data === undefined) throw new Error('COPY … FROM STDIN $1 without its data: send it with copyFromStdin');
  waiting.delete(token as string);
  return data;
};

/**
 * Chunks of COPY text of about this many characters. The rows go to the driver in such pieces
 * rather than as one string: a batch's rows joined were a 2.5 MB string per statement, and every
 * string past V8's large-object size (128 KB) is allocated in the old generation, where only a
 * full mark-compact frees it; those strings drove most of the server's full collections.
 */
const CHUNK_CHARS = 32 * 1024;

const chunksOf = (lines: readonly string[]): string[] => {
  const chunks: string[] = [];
  let from = 0;
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    if (size > 0 && size + lines[i]!.length > CHUNK_CHARS) {
      chunks.push(lines.slice(from, i).join(''));
      from = i;
      size = 0;
    }
    size += lines[i]!.length;
  }
  chunks.push(lines.slice(from).join(''));
  return chunks;
};

/** Writes `lines` (each a row in COPY text format, ending in a newline) into `table`. */
export const copyFromStdin = async (
  db: CommonQueryMethods,
  table: string,
  columns: readonly string[],
  lines: readonly string[],
): Promise<void> => {
  if (lines.length === 0) return;
  const names = sql.join(
    columns.map((name) => sql.identifier([name])),
    sql.fragment`, `,
  );
  const token = `copy-data:${++lastToken}`;
  waiting.set(token, chunksOf(lines));
  try {
    await db.query(sql.unsafe`COPY ${sql.identifier([table])} (${names}) FROM STDIN ${token}`);
  } finally {
    waiting.delete(token);
  }
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
