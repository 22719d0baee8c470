import { PGlite } from '@electric-sql/pglite';
import { createPool, type DatabasePool } from 'slonik';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createPgliteDriverFactory } from './pgliteDriver.ts';
import { createResultParserInterceptor } from './resultParserInterceptor.ts';

export type Database = {
  readonly pool: DatabasePool;
  readonly kind: 'pglite' | 'postgres';
  /** A human-readable description without credentials, for logs. */
  readonly description: string;
  close(): Promise<void>;
};

export type DatabaseOptions =
  | { readonly url: string; readonly maximumPoolSize?: number }
  | { readonly pgliteDataDir: string }
  | { readonly pglite: PGlite; readonly description: string };

const redact = (url: string): string => {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (unparsable url)';
  }
};

/** The one place that decides between embedded PGlite and a real Postgres server. */
export const openDatabase = async (options: DatabaseOptions): Promise<Database> => {
  const interceptors = [createResultParserInterceptor()];
  if ('url' in options) {
    const pool = await createPool(options.url, { interceptors, maximumPoolSize: options.maximumPoolSize ?? 10 });
    return { pool, kind: 'postgres', description: redact(options.url), close: () => pool.end() };
  }
  let pglite: PGlite;
  let description: string;
  if ('pgliteDataDir' in options) {
    await mkdir(options.pgliteDataDir, { recursive: true });
    pglite = await PGlite.create(options.pgliteDataDir);
    description = `embedded PGlite at ${options.pgliteDataDir}`;
  } else {
    pglite = options.pglite;
    description = options.description;
  }
  // One session underneath, so more pool clients only queue; a few keep slonik from serialising reads
  // behind a long transaction in its own pool bookkeeping.
  const pool = await createPool('postgres://pglite/loupe', {
    driverFactory: createPgliteDriverFactory(pglite),
    interceptors,
    maximumPoolSize: 4,
  });
  return {
    pool,
    kind: 'pglite',
    description,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
};

export const pgliteDataDir = (workingDir: string): string => join(workingDir, 'pgdata');
