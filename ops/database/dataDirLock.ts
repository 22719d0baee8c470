import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Who holds an embedded data directory, as written in its lock file. */
export type DataDirHolder = {
  readonly pid: number;
  /** What the holder was started as, e.g. `loupe serve` or `loupe events export`. */
  readonly command: string;
  readonly since: string;
  /** Linux: the process's start time in clock ticks (/proc/PID/stat), so a reused pid is not taken for the holder. */
  readonly startTicks?: number;
};

/** Refusal to open an embedded data directory another live process holds. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by another process: pid ${holder.pid} (${holder.command}, since ${holder.since}). ` +
        'Only one process may open it at a time: stop that one first, or run the server on PostgreSQL (SERVICE_SQL_DATABASE_URL) ' +
        'to use the command beside it.',
    );
    this.name = 'DataDirInUseError';
  }
}

export type DataDirLock = {
  /** Gives the directory back (idempotent); also done when the process exits. */
  release(): void;
};

export const LOCK_FILE = 'loupe.lock';

/** Linux: the start time of a process in clock ticks since boot; undefined elsewhere or when it is gone. */
const startTicksOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
};

const isAlive = (holder: DataDirHolder): boolean => {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Same pid, another process (the holder died and its pid was reused): not the holder.
  const ticks = startTicksOf(holder.pid);
  return holder.startTicks === undefined || ticks === undefined || ticks === holder.startTicks;
};

const readHolder = (file: string): DataDirHolder | null => {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DataDirHolder>;
    return typeof parsed.pid === 'number' ? (parsed as DataDirHolder) : null;
  } catch {
    return null;
  }
};

/** What this process was started as, shown to whoever finds the directory taken. */
const thisCommand = (): string => {
  const [, script = '', ...args] = process.argv;
  const name = basename(script);
  return name === 'cli.ts' || name === 'loupe' || name === 'loupe.js'
    ? `loupe ${args.join(' ') || 'serve'}`.trim()
    : process.argv.join(' ');
};

/**
 * Takes the embedded (PGlite) data directory for this process. PGlite has no lock of its own: a
 * second process opening the same directory (a CLI command beside `npm start`, a second server)
 * reads a stale or half-written state (partial exports) and writes over the first one's files
 * (crashes inside PGlite's WebAssembly). So every opener takes `loupe.lock` in the directory
 * first: created atomically (a complete file linked into place, which fails when one exists)
 * with this pid and command. A lock whose process is gone (killed, crashed) is stale and taken
 * over: it is moved aside atomically, so of two processes taking over at once only one wins.
 */
export const lockDataDir = (dataDir: string): DataDirLock => {
  const file = join(dataDir, LOCK_FILE);
  const mine: DataDirHolder = {
    pid: process.pid,
    command: thisCommand(),
    since: new Date().toISOString(),
    startTicks: startTicksOf(process.pid),
  };
  const text = JSON.stringify(mine);
  const unique = () => `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const temporary = unique();
    writeFileSync(temporary, text, { flag: 'wx' });
    try {
      linkSync(temporary, file);
      return lockHeld(file, text);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
    const holder = readHolder(file);
    if (holder !== null && isAlive(holder)) throw new DataDirInUseError(dataDir, holder);
    // Stale (or unreadable: a crash mid-write cannot leave that, the file is linked whole): move
    // it aside; when another process moved it first, the rename fails and we look again.
    const aside = unique();
    try {
      renameSync(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readHolder(aside);
    // Between our look and our move, another process may have taken the directory over: put its lock back.
    if (moved !== null && holder !== null && (moved.pid !== holder.pid || moved.since !== holder.since) && isAlive(moved)) {
      try {
        linkSync(aside, file);
      } catch {
        // A third one got in meanwhile; it holds the directory now.
      }
    }
    unlinkSync(aside);
  }
  const holder = readHolder(file);
  if (holder !== null) throw new DataDirInUseError(dataDir, holder);
  throw new Error(`could not take the lock ${file}: it keeps changing hands`);
};

const lockHeld = (file: string, text: string): DataDirLock => {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    try {
      // Only our own: never remove a lock another process took over.
      if (readFileSync(file, 'utf8') === text) unlinkSync(file);
    } catch {
      // Gone already.
    }
  };
  // A process that exits without closing the database (process.exit in a command) gives it back
  // too; one that is killed leaves a stale lock, which the next opener takes over.
  process.on('exit', release);
  return { release };
};
