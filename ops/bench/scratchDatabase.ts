import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type ScratchDatabase = {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
};

/** A new, empty database on the server of `serverUrl` (named `<prefix>_<random>`), dropped by `drop()`. */
export const createScratchDatabase = async (serverUrl: string, prefix: string): Promise<ScratchDatabase> => {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
};

/** The server's version string, e.g. "PostgreSQL 15.20 (Debian ...)". */
export const postgresVersion = async (url: string): Promise<string> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ version: string }>('SELECT version()')).rows[0]!.version;
  } finally {
    await client.end();
  }
};
