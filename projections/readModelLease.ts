import { sql, type CommonQueryMethods, type DatabasePool, type DatabasePoolConnection } from 'slonik';
import { z } from 'zod';

/**
 * Advisory lock class of read model ownership; the key is hashtext(read model name). Keyed per
 * read model rather than one lock for the whole runner: read models are independent already (own
 * checkpoint, own tables, own stop), so a process can own some and follow others, a one-off
 * command can claim exactly the one it works on, and status can name the owner of each. All keys
 * sit on one dedicated connection, so this costs what one lock would. A hash collision between
 * two names only means they are always owned together.
 */
export const READ_MODEL_LOCK_CLASS = 7305003;

/** Postgres truncates application_name to NAMEDATALEN - 1 bytes. */
const MAX_LABEL_BYTES = 63;

/** How this process shows up as an owner: `loupe <pid>@<host>` (Postgres keeps 63 bytes of it). */
export const ownerLabel = (pid: number, host: string, role = 'loupe'): string => {
  const label = `${role} ${pid}@${host}`;
  let bytes = Buffer.from(label);
  if (bytes.length <= MAX_LABEL_BYTES) return label;
  bytes = bytes.subarray(0, MAX_LABEL_BYTES);
  // Never cut a multi-byte character in half.
  return bytes.toString('utf8').replace(/\uFFFD$/, '');
};

export type ReadModelLease = {
  /** The label other processes see for this one. */
  readonly label: string;
  /**
   * Claims now, then every `everyMs` in the background until `release()`, calling `onChange` when
   * what this process holds changes. On its own timer, not in the runner's loop: a long batch (or
   * one waiting for a rebuild's swap) must neither delay a takeover nor starve the heartbeat.
   */
  start(names: readonly string[], everyMs: number, onChange?: () => void): Promise<void>;
  /** The read models whose lock this process holds, as of the last claim. */
  held(): ReadonlySet<string>;
  /** Who holds the others (label, or null: nobody), as of the last claim. */
  owners(): ReadonlyMap<string, string | null>;
  /**
   * One claim now: takes the locks of the named read models that nobody holds, and checks the
   * ones held are still held; returns the names held now. Never throws: when the dedicated
   * connection is gone, so are its locks (the server released them when the session ended), and
   * the answer is "none" (see lastError).
   */
  claim(names: readonly string[]): Promise<ReadonlySet<string>>;
  /** Stops claiming and releases every lock (ends the dedicated session). `start` may follow. */
  release(): Promise<void>;
  /** Why the last claim held nothing, when it failed (for logs); null after a successful one. */
  lastError(): Error | null;
};

const heldRow = z.object({ name: z.string(), held: z.boolean() });

type Session = { readonly conn: DatabasePoolConnection; readonly end: () => Promise<void> };

/**
 * Holds one pooled connection for as long as the session lives: a session-level advisory lock
 * lasts exactly as long as its connection, so the locks go when this process dies (SIGKILL, power
 * loss, network cut) and another process takes over at its next claim. Released connections go
 * back through slonik's DISCARD ALL, which drops any advisory lock left on them.
 */
const openSession = (pool: DatabasePool): Promise<Session> =>
  new Promise((resolve, reject) => {
    let finish!: () => void;
    const finished = new Promise<void>((r) => {
      finish = r;
    });
    let opened = false;
    const done = pool
      .connect(async (conn) => {
        opened = true;
        resolve({
          conn,
          end: async () => {
            finish();
            await done;
          },
        });
        await finished;
      })
      .catch((error: unknown) => {
        if (!opened) reject(error);
      });
  });

/**
 * A process that vanishes without closing its connection (host lost, network cut) would keep its
 * locks until the server's TCP keepalive gives up (hours by default). The session asks the server
 * to end it after this long without a claim (PostgreSQL 14+; claims come every second from a timer)
 * and to probe a silent peer early; settings an older server does not know are left out.
 */
const SESSION_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['idle_session_timeout', '20s'],
  ['tcp_keepalives_idle', '10'],
  ['tcp_keepalives_interval', '5'],
  ['tcp_keepalives_count', '3'],
];

/**
 * Ownership of read models among several processes on one PostgreSQL database. Followers claim
 * about once a second; the owner's claim doubles as its heartbeat. Exclusivity here is about
 * work, not correctness: applyBatch locks and re-reads the checkpoint rows, so even two processes
 * that both believed they owned a read model (an owner that lost its connection mid batch) would
 * not apply an event twice.
 */
export const createReadModelLease = (pool: DatabasePool, options: { readonly label: string }): ReadModelLease => {
  let session: Session | null = null;
  let opening: Promise<Session> | null = null;
  let lastError: Error | null = null;
  let held: ReadonlySet<string> = new Set();
  let owners: ReadonlyMap<string, string | null> = new Map();
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  /** Bumped by release(): a claim that started before it must not keep what it took. */
  let generation = 0;

  const drop = async () => {
    const s = session;
    session = null;
    held = new Set();
    await s?.end().catch(() => undefined);
  };

  const connect = async (): Promise<Session> => {
    if (session) return session;
    opening ??= (async () => {
      const s = await openSession(pool);
      try {
        await s.conn.query(sql.unsafe`SELECT set_config('application_name', ${options.label}, false)`);
        for (const [name, value] of SESSION_SETTINGS) {
          await s.conn.query(sql.unsafe`SELECT set_config(${name}, ${value}, false)`).catch(() => undefined);
        }
      } catch (error) {
        await s.end().catch(() => undefined);
        throw error;
      }
      return s;
    })().finally(() => {
      opening = null;
    });
    session = await opening;
    return session;
  };

  const claim = async (names: readonly string[]): Promise<ReadonlySet<string>> => {
    if (names.length === 0) return new Set();
    const at = generation;
    try {
      const s = await connect();
      // Held ones are looked up, not locked again: a session lock taken twice must be released twice.
      const rows = await s.conn.any(sql.type(heldRow)`
        SELECT n AS name,
          CASE WHEN EXISTS (
            SELECT 1 FROM pg_locks
            WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
              AND classid = ${READ_MODEL_LOCK_CLASS}::int::oid AND objid = hashtext(n)::oid AND objsubid = 2
          ) THEN true ELSE pg_try_advisory_lock(${READ_MODEL_LOCK_CLASS}, hashtext(n)) END AS held
        FROM unnest(${sql.array(names, 'text')}) AS n`);
      if (at !== generation) {
        // Released while this claim ran: give back what it may just have taken.
        await drop();
        return new Set();
      }
      lastError = null;
      held = new Set(rows.filter((r) => r.held).map((r) => r.name));
      const others = names.filter((n) => !held.has(n));
      // Only for display: failing to name the owners must not cost the locks.
      owners = others.length > 0 ? await readModelOwners(s.conn, others).catch(() => owners) : new Map();
      return held;
    } catch (error) {
      // The session is unusable (or never opened): whatever it held is gone with it.
      lastError = error as Error;
      await drop();
      return held;
    }
  };

  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  return {
    label: options.label,
    lastError: () => lastError,
    held: () => held,
    owners: () => owners,
    claim,
    async start(names, everyMs, onChange) {
      stopTimer();
      const tick = async () => {
        const before = held;
        const after = await claim(names);
        if (after.size !== before.size || [...after].some((n) => !before.has(n))) onChange?.();
      };
      await tick();
      timer = setInterval(() => {
        // One claim at a time: a slow database must not pile them up.
        ticking ??= tick().finally(() => {
          ticking = null;
        });
      }, everyMs);
      timer.unref();
    },
    async release() {
      generation++;
      stopTimer();
      await ticking?.catch(() => undefined);
      await opening?.catch(() => undefined);
      await drop();
    },
  };
};

const ownerRow = z.object({ name: z.string(), owner: z.string().nullable() });

/**
 * Who holds each read model's lock right now, as the holder's application_name (the label of a
 * Loupe process, `loupe <pid>@<host>`), or null when no process does. Read from pg_locks, so a
 * dead process never shows: its locks went with its session.
 */
export const readModelOwners = async (db: CommonQueryMethods, names: readonly string[]): Promise<Map<string, string | null>> => {
  const rows = await db.any(sql.type(ownerRow)`
    SELECT n AS name, (
      SELECT coalesce(nullif(a.application_name, ''), 'backend ' || l.pid::text)
      FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = ${READ_MODEL_LOCK_CLASS}::int::oid AND l.objid = hashtext(n)::oid AND l.objsubid = 2
      LIMIT 1) AS owner
    FROM unnest(${sql.array(names, 'text')}) AS n`);
  return new Map(rows.map((r) => [r.name, r.owner]));
};
