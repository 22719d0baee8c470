import type { Logger } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { repeatWithoutOverlap } from '../repeatWithoutOverlap.ts';

/**
 * Embedded PGlite runs Postgres single-user: there is no checkpointer process, so nothing
 * checkpoints on a timer (PostgreSQL's checkpoint_timeout) and the WAL in `pg_wal` is only
 * recycled when the backend itself crosses max_wal_size (1 GB), in whichever statement crosses it,
 * an ingest's included. Measured under retention (BENCHMARKS.md §20): ~0.5 MB of WAL a second at
 * 50 spans/s, so a data directory gained ~130 MB of WAL in 4 minutes. The server checkpoints
 * itself instead, off the ingest path: after every removal (so the segments that held removed
 * content are recycled or deleted soon; README, "What stays outside Loupe's reach") and whenever `maxWalBytes` were written
 * since the last checkpoint. PostgreSQL has its checkpointer (and CHECKPOINT needs a privilege
 * there): this is for PGlite only.
 */
export const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

export const checkpoint = async (pool: DatabasePool): Promise<void> => {
  await pool.query(sql.unsafe`CHECKPOINT`);
};

/** WAL written since the last checkpoint began (its redo point): what a checkpoint now would let go. */
export const walSinceCheckpoint = async (pool: DatabasePool): Promise<number> =>
  pool.oneFirst(sql.type(z.object({ bytes: z.number() }))`
    SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()`);

/** Looks every `checkEveryMs` at the WAL written since the last checkpoint, and checkpoints past `maxWalBytes`. */
export const startWalCheckpoints = (
  pool: DatabasePool,
  logger: Logger,
  { checkEveryMs = 30_000, maxWalBytes = WAL_CHECKPOINT_BYTES } = {},
): (() => void) =>
  repeatWithoutOverlap(
    async () => {
      if ((await walSinceCheckpoint(pool)) >= maxWalBytes) await checkpoint(pool);
    },
    { everyMs: checkEveryMs, logger, failure: 'CHECKPOINT failed' },
  );
