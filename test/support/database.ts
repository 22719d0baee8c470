import { PGlite } from '@electric-sql/pglite';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../ops/database/openDatabase.ts';
import { allMigrations } from '../../ops/database/allMigrations.ts';
import { migrate } from '../../projections/migrate.ts';
import { freshEventStore } from './eventStoreBackend.ts';

/**
 * A fresh, empty database for one test file, on the backend CI selected: a real Postgres when
 * SERVICE_SQL_DATABASE_URL is set (a new database created on that server and dropped after),
 * otherwise embedded PGlite. PGlite's initdb takes seconds, so the first call stores an empty
 * cluster as a template tarball and later calls load it (well under a second).
 *
 * Most test databases are wanted migrated (every server migrates at start): applying the 28+
 * migrations costs about a second per database on either backend, which over the suite's
 * hundreds of databases was minutes of CI. So a migrated database is copied from a template made
 * once per set of migrations (keyed by their ids and SQL): a PGlite tarball, or on PostgreSQL a
 * template database (`CREATE DATABASE … TEMPLATE`). `migrate` still runs on every server start
 * and finds nothing left to apply; a migration from empty is still what `freshDatabase` gives.
 */
export const serverUrl = (): string | undefined => process.env.SERVICE_SQL_DATABASE_URL || undefined;

export type TestDatabase = Database & {
  readonly url?: string;
  /** The EventStoreDB connection string of this database's log when the stand-in is selected (eventStoreBackend.ts). */
  readonly eventStoreUrl?: string;
};

const pgliteVersion = async (): Promise<string> =>
  JSON.parse(await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8')).version;

/** Stores what `make` dumps as `<name>` in the temp folder once (written aside, renamed in place). */
const cachedTarball = async (name: string, make: () => Promise<Blob>): Promise<Blob> => {
  const file = join(tmpdir(), name);
  if (!existsSync(file)) {
    const dump = await make();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
  }
  return new Blob([await readFile(file)]);
};

const pgliteTemplate = async (): Promise<Blob> =>
  cachedTarball(`loupe-pglite-template-${await pgliteVersion()}.tar`, async () => {
    const db = await PGlite.create();
    const dump = await db.dumpDataDir('none');
    await db.close();
    return dump;
  });

/** Names the current set of migrations: a template made for other migrations is never used. */
const migrationsKey = (): string => {
  const hash = createHash('sha256');
  for (const m of allMigrations()) hash.update(`${m.id}\0${m.sql}\0`);
  return hash.digest('hex').slice(0, 16);
};

/**
 * A template made for other migrations (another branch, an older commit) is left by the run that
 * made it: those nobody has used for this long are removed by the next process that takes its
 * own, so repeated runs over changing migrations do not grow the temp folder or the server.
 */
const STALE_TEMPLATE_MS = 60 * 60 * 1000;

/** Removes the other migrated tarballs unused for `STALE_TEMPLATE_MS`, and marks this one used (its mtime). */
const sweepPgliteTemplates = async (keep: string): Promise<void> => {
  const now = Date.now();
  await utimes(join(tmpdir(), keep), now / 1000, now / 1000).catch(() => undefined);
  for (const file of await readdir(tmpdir()).catch(() => [] as string[])) {
    if (!file.startsWith('loupe-pglite-migrated-') || file === keep) continue;
    const path = join(tmpdir(), file);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > STALE_TEMPLATE_MS) await rm(path, { force: true }).catch(() => undefined);
  }
};

let pgliteSwept = false;

const pgliteMigratedTemplate = async (): Promise<Blob> => {
  const name = `loupe-pglite-migrated-${await pgliteVersion()}-${migrationsKey()}.tar`;
  const blob = await cachedTarball(name, async () => {
    const pglite = await PGlite.create({ loadDataDir: await pgliteTemplate() });
    const db = await openDatabase({ pglite, description: 'test PGlite template' });
    await migrate(db.pool, allMigrations());
    const dump = await pglite.dumpDataDir('none');
    await db.close();
    return dump;
  });
  if (!pgliteSwept) {
    pgliteSwept = true;
    await sweepPgliteTemplates(name);
  }
  return blob;
};

const adminQuery = async (url: string, text: string): Promise<pg.QueryResult> => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await admin.query(text);
  } finally {
    await admin.end();
  }
};

const databaseUrl = (url: string, name: string): string => {
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return dbUrl.toString();
};

/** The time a name made by `stamped` was made, or null for a name of another shape. */
const stampOf = (name: string, prefix: string): number | null => {
  const match = new RegExp(`^${prefix}([0-9a-z]+)_[0-9a-f]{8}$`).exec(name);
  return match ? Number.parseInt(match[1] as string, 36) : null;
};
const stamped = (prefix: string): string => `${prefix}${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

/** A test file's database is dropped when it closes; one a killed run left is dropped after this long. */
const STALE_TEST_DATABASE_MS = 24 * 60 * 60 * 1000;

/**
 * Drops what test runs left on the server: templates of other migrations unused for
 * `STALE_TEMPLATE_MS` (each process that takes a template writes when in its comment), half-built
 * templates and test databases of runs that were killed. A plain DROP: a database someone is
 * connected to is in use and stays (the error is ignored).
 */
const sweepPostgres = async (url: string, keep: string): Promise<void> => {
  await adminQuery(url, `COMMENT ON DATABASE ${keep} IS 'loupe test template, used ${Date.now()}'`);
  const { rows } = await adminQuery(
    url,
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database
     WHERE datname LIKE 'loupe_template_%' OR datname LIKE 'loupe_test_%'`,
  );
  const now = Date.now();
  for (const { name, comment } of rows as { name: string; comment: string | null }[]) {
    if (name === keep) continue;
    const made = stampOf(name, 'loupe_test_') ?? stampOf(name, 'loupe_template_[0-9a-f]{16}_');
    const used = made ?? Number(/used (\d+)$/.exec(comment ?? '')?.[1] ?? Number.NaN);
    if (Number.isNaN(used)) {
      // A template made without a comment (by an older checkout): counted from now.
      await adminQuery(url, `COMMENT ON DATABASE ${name} IS 'loupe test template, used ${now}'`).catch(() => undefined);
      continue;
    }
    const staleAfter = name.startsWith('loupe_test_') ? STALE_TEST_DATABASE_MS : STALE_TEMPLATE_MS;
    if (now - used > staleAfter) await adminQuery(url, `DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
  }
};

/** The template this process copies from, once found or made (and the server swept). */
let postgresTemplate: Promise<string> | null = null;

/**
 * The migrated template database on the PostgreSQL server, made by the first process that needs
 * it: migrated under a name of its own, then renamed into place (a rename is atomic; a process
 * that lost the race drops its copy). Nobody stays connected to it, so it can be copied.
 */
const postgresMigratedTemplate = async (url: string): Promise<string> => {
  const name = `loupe_template_${migrationsKey()}`;
  const exists = async () => (await adminQuery(url, `SELECT 1 FROM pg_database WHERE datname = '${name}'`)).rowCount === 1;
  if (await exists()) return name;
  const building = stamped(`${name}_`);
  await adminQuery(url, `CREATE DATABASE ${building}`);
  const db = await openDatabase({ url: databaseUrl(url, building), maximumPoolSize: 1 });
  try {
    await migrate(db.pool, allMigrations());
  } finally {
    await db.close();
  }
  try {
    await adminQuery(url, `ALTER DATABASE ${building} RENAME TO ${name}`);
  } catch (error) {
    await adminQuery(url, `DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    if (!(await exists())) throw error;
  }
  return name;
};

const templateFor = (url: string): Promise<string> => {
  postgresTemplate ??= postgresMigratedTemplate(url).then(async (name) => {
    await sweepPostgres(url, name);
    return name;
  });
  postgresTemplate.catch(() => {
    postgresTemplate = null;
  });
  return postgresTemplate;
};

/** Copies the migrated template; made again when another run's sweep dropped it meanwhile (3D000). */
const createFromTemplate = async (url: string, name: string): Promise<void> => {
  try {
    await adminQuery(url, `CREATE DATABASE ${name} TEMPLATE ${await templateFor(url)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
    postgresTemplate = null;
    await adminQuery(url, `CREATE DATABASE ${name} TEMPLATE ${await templateFor(url)}`);
  }
};

/** A fresh, empty database (no migration applied) on the selected backend, with its log. */
export const freshDatabase = async (): Promise<TestDatabase> => withEventStore(await freshSqlDatabase(false));

/** A fresh database with every migration applied (copied from the migrated template). */
export const freshMigratedDatabase = async (): Promise<TestDatabase> => withEventStore(await freshSqlDatabase(true));

const withEventStore = async (db: TestDatabase): Promise<TestDatabase> => {
  const log = await freshEventStore();
  if (!log) return db;
  return {
    ...db,
    eventStoreUrl: log.url,
    close: async () => {
      await db.close();
      await log.close();
    },
  };
};

const freshSqlDatabase = async (migrated: boolean): Promise<TestDatabase> => {
  const url = serverUrl();
  if (!url) {
    const pglite = await PGlite.create({ loadDataDir: await (migrated ? pgliteMigratedTemplate() : pgliteTemplate()) });
    return openDatabase({ pglite, description: 'test PGlite (memory)' });
  }
  const name = stamped('loupe_test_');
  if (migrated) await createFromTemplate(url, name);
  else await adminQuery(url, `CREATE DATABASE ${name}`);
  const db = await openDatabase({ url: databaseUrl(url, name), maximumPoolSize: 8 });
  return {
    ...db,
    url: databaseUrl(url, name),
    close: async () => {
      await db.close();
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
};
