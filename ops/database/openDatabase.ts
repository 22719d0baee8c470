import { PGlite } from '@electric-sql/pglite';
import { createPool, type DatabasePool } from 'slonik';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lockDataDir, type DataDirLock } from './dataDirLock.ts';
import { initPgliteDataDir } from './initPgliteDataDir.ts';
import { createPgliteDriverFactory, type PgliteSession } from './pgliteDriver.ts';
import { startPgliteInWorker } from './pgliteInWorker.ts';
import { installPgCopyRoute } from './pgCopyRoute.ts';
import { createResultParserInterceptor } from './resultParserInterceptor.ts';

export type Database = {
  readonly pool: DatabasePool;
  readonly kind: 'pglite' | 'postgres';
  /** A human-readable description without credentials, for logs. */
  readonly description: string;
  /** Resolves if the embedded database's worker thread dies (never on PostgreSQL, nor after close). */
  readonly lost?: Promise<Error>;
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

/**
 * Embedded Postgres sized for a sidecar. PGlite's WebAssembly memory never shrinks: whatever
 * Postgres once allocated inside it stays resident. Default shared_buffers (128 MB) lives there on
 * top of the 128 MB the module starts with; 16 MB measured no slower on ingest here (the OS page
 * cache still holds the data files), and the idle server ~60 MB smaller (BENCHMARKS.md, "Memory").
 * maintenance_work_mem (64 MB by default) is what one CREATE INDEX or VACUUM may take; 16 MB
 * keeps a rebuild's or migration's index build from growing the heap for good, at the cost of
 * slower builds on big tables. work_mem stays at Postgres' 4 MB per sort or hash. Not persisted:
 * a start with other settings is not affected by an earlier one.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB', '-c', 'maintenance_work_mem=16MB', '-c', 'work_mem=4MB'];

/** The one place that decides between embedded PGlite and a real Postgres server. */
export const openDatabase = async (options: DatabaseOptions): Promise<Database> => {
  const interceptors = [createResultParserInterceptor()];
  if ('url' in options) {
    installPgCopyRoute();
    const pool = await createPool(options.url, { interceptors, maximumPoolSize: options.maximumPoolSize ?? 10 });
    return { pool, kind: 'postgres', description: redact(options.url), close: () => pool.end() };
  }
  let pglite: PgliteSession;
  let lost: Promise<Error> | undefined;
  let description: string;
  let lock: DataDirLock | null = null;
  if ('pgliteDataDir' in options) {
    await mkdir(options.pgliteDataDir, { recursive: true });
    // One process at a time on a data directory (dataDirLock.ts): the server and every CLI command.
    lock = lockDataDir(options.pgliteDataDir);
    try {
      await initPgliteDataDir(options.pgliteDataDir);
      // In a worker thread of its own, so no statement holds the server's thread (pgliteInWorker.ts).
      const inWorker = await startPgliteInWorker({
        dataDir: options.pgliteDataDir,
        startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
      });
      pglite = inWorker;
      lost = inWorker.lost;
    } catch (error) {
      lock.release();
      throw error;
    }
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
    ...(lost === undefined ? {} : { lost }),
    close: async () => {
      try {
        await pool.end();
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
};

export const pgliteDataDir = (workingDir: string): string => join(workingDir, 'pgdata');
