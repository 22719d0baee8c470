import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, serverUrl } from './database.ts';

// Apart from cliProcess.ts: a test that runs the CLI on a working directory of its own does not
// depend on the backend CI selects, and the test runner tells so by what a file imports
// (ops/testBackendUse.ts).

/**
 * A database of its own for a test that runs the CLI: a fresh one on the PostgreSQL server when
 * the suite runs against one, else an embedded PGlite under a temporary working directory.
 */
export const cliDatabase = async (): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> => {
  if (serverUrl()) {
    const kept = await freshDatabase();
    return { env: { SERVICE_SQL_DATABASE_URL: kept.url! }, cleanup: () => kept.close() };
  }
  const dir = await mkdtemp(join(tmpdir(), 'loupe-cli-'));
  return { env: { SERVICE_WORKING_DIR: dir }, cleanup: () => rm(dir, { recursive: true, force: true }) };
};
