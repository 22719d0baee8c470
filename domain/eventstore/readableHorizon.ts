import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/**
 * Below this transaction id, no event can still appear: every transaction with a smaller id that
 * could append has ended. Reading only below it keeps the global order stable (a reader never
 * passes a position an earlier transaction later fills).
 *
 * The plain horizon, the snapshot's xmin, is the oldest transaction running on the whole server:
 * one long transaction in another database (another application, a test suite's neighbour) or a
 * projection batch writing read models would hold every reader back, and commands answered 503 while
 * they waited. So a running transaction is skipped when it is positively known not to touch the
 * log: it holds its own transaction-id lock and no lock on `events`. Every append and removal
 * touches `events` (reads it) before it is given a transaction id, so a transaction that may
 * append holds such a lock for as long as it has an id; one that ended between the snapshot and
 * the look at `pg_locks` has no lock row left and is kept, conservatively.
 */
export const readableHorizon = sql.fragment`(
  SELECT coalesce(
    (
      SELECT min(running) FROM pg_snapshot_xip(snap.s) running
      WHERE NOT EXISTS (
        SELECT 1 FROM pg_locks own
        WHERE own.locktype = 'transactionid' AND own.mode = 'ExclusiveLock' AND own.granted
          AND own.transactionid = xid(running)
          AND NOT EXISTS (
            SELECT 1 FROM pg_locks l
            WHERE l.virtualtransaction = own.virtualtransaction AND l.locktype = 'relation'
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.relation = 'events'::regclass
          )
      )
    ),
    pg_snapshot_xmax(snap.s)
  )
  FROM (SELECT pg_current_snapshot() AS s) snap
)`;

/**
 * The horizon as one reader sees it over time: never lower than one it saw before. The horizon
 * above is exact only at its statement's snapshot; a neighbour's transaction that ends between
 * that snapshot and the look at `pg_locks` is kept, conservatively, so two reads one after the
 * other could see it fall back below events the first one already returned (readAll would then
 * answer nothing after it had answered something). A horizon once valid stays valid: everything
 * below it had ended, so a later snapshot sees it too. Taken as a value, then used as a literal,
 * it also makes the size query and the read of readAll see the same events.
 */
export const createMonotonicHorizon = (db: CommonQueryMethods): (() => Promise<string>) => {
  let highest = '0';
  return async () => {
    highest = await db.oneFirst(sql.type(z.object({ h: z.string() }))`SELECT greatest(${readableHorizon}, ${highest}::xid8)::text AS h`);
    return highest;
  };
};
