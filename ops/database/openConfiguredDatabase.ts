import type { Config } from '../config.ts';
import { openDatabase, pgliteDataDir, type Database } from './openDatabase.ts';

/** SERVICE_SQL_DATABASE_URL → that Postgres; otherwise embedded PGlite under the working dir. */
export const openConfiguredDatabase = (config: Config): Promise<Database> =>
  config.database.sqlDatabaseUrl
    ? openDatabase({ url: config.database.sqlDatabaseUrl })
    : openDatabase({ pgliteDataDir: pgliteDataDir(config.database.workingDir) });
