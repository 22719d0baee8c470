import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** What the child runs: PGlite's own first start on the directory, then a clean close. */
const INITDB = `
const { PGlite } = await import(process.argv[1]);
const db = await PGlite.create(process.argv[2]);
await db.close();
`;

/**
 * Initialises an empty PGlite data directory in a short-lived child process. On an empty
 * directory PGlite runs initdb in a second Postgres instance, and WebAssembly memory never goes
 * back to the system: done in the server's own process, it left a first start ~120–160 MB bigger
 * for good than every later start of the same directory (BENCHMARKS.md §5 and §11). A directory
 * already initialised (PG_VERSION present) is left alone.
 */
export const initPgliteDataDir = async (dataDir: string): Promise<void> => {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  // The server's own flags (the V8 ones: --liftoff-only keeps the child's peak down too), without
  // the TypeScript loader: the child runs no TypeScript.
  const flags = process.execArgv.filter((flag) => flag.startsWith('--') && !flag.includes('tsLoader') && flag !== '--import');
  const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', INITDB, pglite, dataDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolve(signal ? -1 : exitCode));
  });
  if (code !== 0) {
    // The child's error line, not its stack.
    const errorLine = stderr.split('\n').find((line) => /Error\b/.test(line));
    const reason = errorLine?.trim() ?? (stderr.trim() || `exit ${code}`);
    throw new Error(`could not initialise the embedded database in ${dataDir}: ${reason}`);
  }
};
