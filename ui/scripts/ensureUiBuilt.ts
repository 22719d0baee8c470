/**
 * Builds the UI into ui/dist when it is missing or older than its sources, so `npm start` on a
 * fresh clone serves it with no other step (and no network), and browser tests never run against
 * a stale build. Concurrent callers (test files run in parallel) wait for one build instead of
 * racing: the first takes a lock directory, builds into a temporary folder and renames it in place.
 *
 *   npm run ts -- ui/scripts/ensureUiBuilt.ts [--force]
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const UI_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const UI_DIST = join(UI_ROOT, 'dist');
const LOCK = join(UI_ROOT, '.build-lock');
const LOCK_STALE_MS = 5 * 60_000;

const newestMtime = (path: string): number => {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
};

/** The sources the build reads: a change to any of them makes the build stale. */
const sourcesMtime = (): number =>
  Math.max(
    ...['src', 'public', 'index.html', 'vite.config.ts'].map((p) => newestMtime(join(UI_ROOT, p))),
    newestMtime(join(UI_ROOT, '..', 'package-lock.json')),
  );

const builtMtime = (): number => {
  const index = join(UI_DIST, 'index.html');
  return existsSync(index) ? statSync(index).mtimeMs : 0;
};

export const uiBuildIsCurrent = (): boolean => builtMtime() >= sourcesMtime();

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const takeLock = async (): Promise<boolean> => {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return true;
    } catch {
      // Another process builds; a lock left by a killed build is taken over after a while.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      await sleep(250);
      if (uiBuildIsCurrent()) return false;
    }
  }
};

/** Returns true when it built, false when the build was already current. */
export const ensureUiBuilt = async (options: { force?: boolean; log?: (line: string) => void } = {}): Promise<boolean> => {
  if (!options.force && uiBuildIsCurrent()) return false;
  if (!(await takeLock())) return false;
  try {
    if (!options.force && uiBuildIsCurrent()) return false;
    const { build } = await import('vite');
    const outDir = `${UI_DIST}.tmp-${process.pid}`;
    const started = Date.now();
    await build({ configFile: join(UI_ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    rmSync(UI_DIST, { recursive: true, force: true });
    renameSync(outDir, UI_DIST);
    options.log?.(`UI built into ${UI_DIST} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  ensureUiBuilt({ force, log: (line) => console.log(line) }).then(
    (built) => {
      if (!built) console.log('UI build is current');
    },
    (error: unknown) => {
      console.error(`UI build failed: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
