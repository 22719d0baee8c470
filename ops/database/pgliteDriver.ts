import type { ParserOptions } from '@electric-sql/pglite';
import { createDriverFactory, type DriverCommand, type DriverFactory, type DriverQueryResult } from '@slonik/driver';
import {
  CheckExclusionConstraintViolationError,
  CheckIntegrityConstraintViolationError,
  ForeignKeyIntegrityConstraintViolationError,
  InputSyntaxError,
  InvalidInputError,
  NotNullIntegrityConstraintViolationError,
  UniqueIntegrityConstraintViolationError,
} from '@slonik/errors';
import { parse as parseArray } from 'postgres-array';
import { Readable } from 'node:stream';
import { COPY_FROM_STDIN, copyStatement, takeCopyData } from '../../projections/copyFromStdin.ts';

/**
 * slonik over embedded PGlite, so the same queries run on PGlite and on a real Postgres.
 * PGlite is ONE session: a client that opens a transaction owns the session until it commits or
 * rolls back, otherwise statements of other clients would run inside its transaction.
 * (docs/reference/stack-notes.md §1(b): the socket multiplexer is unsafe with more than one connection.)
 */

// The same SQLSTATE → slonik error table @slonik/pg-driver uses, so callers catch one error type.
const wrapError = (error: unknown, sqlText: string, values: readonly unknown[]): unknown => {
  const e = error as { code?: string; message?: string };
  switch (e?.code) {
    case '22P02':
      return new InvalidInputError(e.message ?? 'invalid input');
    case '23502':
      return new NotNullIntegrityConstraintViolationError(error as Error);
    case '23503':
      return new ForeignKeyIntegrityConstraintViolationError(error as Error);
    case '23505':
      return new UniqueIntegrityConstraintViolationError(error as Error);
    case '23P01':
      return new CheckExclusionConstraintViolationError(error as Error);
    case '23514':
      return new CheckIntegrityConstraintViolationError(error as Error);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    case '42601':
      return new InputSyntaxError(error as Error, { sql: sqlText, values } as any);
    default:
      return error;
  }
};

/**
 * What the driver needs of PGlite: an in-thread `PGlite` (tests, benches) has it, and so has the
 * server's PGlite in a worker thread (pgliteInWorker.ts).
 */
export type PgliteSession = {
  readonly waitReady: Promise<void>;
  query<T>(
    sql: string,
    params?: unknown[],
    options?: { readonly parsers?: ParserOptions; readonly rowMode?: 'object'; readonly blob?: Blob },
  ): Promise<{ rows: T[]; fields: { name: string; dataTypeID: number }[]; affectedRows?: number }>;
  close(): Promise<void>;
};

class SessionLock {
  private owner: symbol | null = null;
  private readonly waiters: Array<() => void> = [];
  async acquire(who: symbol): Promise<boolean> {
    if (this.owner === who) return false;
    while (this.owner !== null) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.owner = who;
    return true;
  }
  release(who: symbol): void {
    if (this.owner !== who) return;
    this.owner = null;
    this.waiters.shift()?.();
  }
}

export const createPgliteDriverFactory = (db: PgliteSession): DriverFactory =>
  createDriverFactory(async ({ driverConfiguration }) => {
    const names = driverConfiguration.typeParsers.map((t) => t.name);
    const { rows } = await db.query<{ oid: number; typarray: number; typname: string }>(
      'SELECT oid::int, typarray::int, typname FROM pg_type WHERE typname = ANY($1::text[])',
      [names],
    );
    const parsers: Record<number, (value: string) => unknown> = {};
    for (const parser of driverConfiguration.typeParsers) {
      const type = rows.find((r) => r.typname === parser.name);
      if (!type) throw new Error(`Database type "${parser.name}" not found.`);
      parsers[type.oid] = (value) => parser.parse(value);
      if (type.typarray) {
        parsers[type.typarray] = (value) => parseArray(value).map((x) => (x === null ? null : parser.parse(x as string)));
      }
    }
    const lock = new SessionLock();
    return {
      createPoolClient: async () => {
        const me = Symbol('client');
        let inTransaction = false;
        const run = async (sqlText: string, values: readonly unknown[] = []): Promise<DriverQueryResult> => {
          const verb = sqlText.trimStart().slice(0, 20).toUpperCase();
          const begins = verb.startsWith('START TRANSACTION') || verb.startsWith('BEGIN');
          const ends = verb.startsWith('COMMIT') || (verb.startsWith('ROLLBACK') && !verb.startsWith('ROLLBACK TO'));
          const acquired = await lock.acquire(me);
          try {
            // copyFromStdin's statement: PGlite reads COPY data from the file /dev/blob, given as a Blob.
            const result = COPY_FROM_STDIN.test(sqlText)
              ? await db.query<Record<string, unknown>>(copyStatement(sqlText).replace(/ FROM STDIN$/, " FROM '/dev/blob'"), [], {
                  blob: new Blob([...takeCopyData(values[0])]),
                })
              : await db.query<Record<string, unknown>>(sqlText, values as unknown[], { parsers, rowMode: 'object' });
            if (begins) inTransaction = true;
            const r = result as typeof result & { command?: string; rowCount?: number };
            return {
              command: (r.command ?? 'SELECT') as DriverCommand,
              fields: (result.fields ?? []).map((f) => ({ dataTypeId: f.dataTypeID, name: f.name })),
              rowCount: r.rowCount ?? result.affectedRows ?? result.rows.length,
              rows: result.rows,
            };
          } catch (error) {
            throw wrapError(error, sqlText, values);
          } finally {
            if (ends) inTransaction = false;
            if (!inTransaction && (acquired || ends)) lock.release(me);
          }
        };
        return {
          connect: async () => {
            await db.waitReady;
          },
          end: async () => {
            if (inTransaction) {
              await db.query('ROLLBACK').catch(() => undefined);
              inTransaction = false;
            }
            lock.release(me);
          },
          query: (sqlText, values) => run(sqlText, values),
          stream: (sqlText, values) =>
            Readable.from(
              (async function* () {
                const result = await run(sqlText, values);
                for (const row of result.rows) yield { fields: result.fields, row };
              })(),
            ) as never,
        };
      },
    };
  });
