import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';
import { COPY_FROM_STDIN, copyStatement, takeCopyData } from '../../projections/copyFromStdin.ts';

let installed = false;

/**
 * Lets `copyFromStdin` reach PostgreSQL through slonik's pg driver. That driver calls
 * `client.query(text, values)` on a pg Client it keeps to itself, so the only place to see the
 * statement with its connection is pg's Client.query: a statement of the `COPY … FROM STDIN $1`
 * shape (invalid SQL, so nothing else sends it) goes out as COPY through pg-copy-streams on that
 * same client and answers as a query result would; everything else is untouched. Idempotent.
 */
export const installPgCopyRoute = (): void => {
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [text, values, callback] = args;
    if (
      typeof text === 'string' &&
      Array.isArray(values) &&
      values.length === 1 &&
      typeof values[0] === 'string' &&
      callback === undefined &&
      COPY_FROM_STDIN.test(text)
    ) {
      return copyIn(this, copyStatement(text), values[0]);
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
};

const copyIn = async (client: pg.Client, statement: string, token: string) => {
  const data = takeCopyData(token);
  const stream = client.query(copyFrom(statement));
  for (const chunk of data) stream.write(chunk);
  stream.end();
  await finished(stream);
  return { command: 'COPY', rowCount: stream.rowCount, rows: [], fields: [] };
};
