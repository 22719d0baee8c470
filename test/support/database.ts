import { PGlite } from '@electric-sql/pglite';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
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
 */
export const serverUrl = (): string | undefined => process.env.SERVICE_SQL_DATABASE_URL || undefined;

export type TestDatabase = Database & {
  readonly url?: string;
  /** The EventStoreDB connection string of this database's log when the stand-in is selected (eventStoreBackend.ts). */
  readonly eventStoreUrl?: string;
};

const pgliteTemplate = async (): Promise<Blob> => {
  const { version } = JSON.parse(await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'));
  const file = join(tmpdir(), `loupe-pglite-template-${version}.tar`);
  if (!existsSync(file)) {
    const db = await PGlite.create();
    const dump = await db.dumpDataDir('none');
    await db.close();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
  }
  return new Blob([await readFile(file)]);
};

export const freshDatabase = async (): Promise<TestDatabase> => {
  const db = await freshSqlDatabase();
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

const freshSqlDatabase = async (): Promise<TestDatabase> => {
  const url = serverUrl();
  if (!url) {
    const pglite = await PGlite.create({ loadDataDir: await pgliteTemplate() });
    return openDatabase({ pglite, description: 'test PGlite (memory)' });
  }
  const name = `loupe_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  const db = await openDatabase({ url: dbUrl.toString(), maximumPoolSize: 8 });
  return {
    ...db,
    url: dbUrl.toString(),
    close: async () => {
      await db.close();
      const drop = new pg.Client({ connectionString: url });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
    },
  };
};

/** A fresh database with every migration applied. */
export const freshMigratedDatabase = async (): Promise<TestDatabase> => {
  const db = await freshDatabase();
  await migrate(db.pool, allMigrations());
  return db;
};
