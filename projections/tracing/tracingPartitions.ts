import { sql, type FragmentSqlToken } from 'slonik';

/**
 * The tracing read model is applied in `count` partitions by trace id (issue 40): partition `i`
 * writes the traces whose id hashes to `i`, with their spans, each partition with its own
 * checkpoint, lease and stop, so several processes (and several database backends of one) apply
 * spans at once. Partition 0 keeps the name `tracing` (one partition is the read model as it always
 * was); the others are `tracing.1` … `tracing.<count - 1>`.
 *
 * Row ids do not depend on the partitioning: every partition reads every span event and hands out
 * the ids of all its spans, traces and sessions in log order (as one chain would), and writes only
 * its own rows. So a span keeps its id whatever the count, and a rebuild gives the same ids.
 */
export const TRACING = 'tracing';

export const tracingPartitionName = (index: number): string => (index === 0 ? TRACING : `${TRACING}.${index}`);

/** Whether a read model name is one of the tracing partitions (`tracing`, `tracing.3`). */
export const isTracingPartition = (name: string): boolean => name === TRACING || /^tracing\.[1-9][0-9]*$/.test(name);

/** The most partitions a deployment may configure (each one is a lane, a checkpoint and a lock). */
export const MAX_TRACING_PARTITIONS = 64;

/**
 * The partition of a trace: FNV-1a (32 bits) of its id's UTF-16 code units, modulo the count.
 * Fixed forever: a different hash moves traces between partitions (a rebuild is then required).
 */
export const partitionOfTrace = (traceId: string, count: number): number => {
  if (count <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < traceId.length; i++) {
    h ^= traceId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % count;
};

/** The row of `tracing_ids` where partition `index` keeps the last id of `kind` it handed out. */
export const idKindOf = (kind: string, index: number): string => (index === 0 ? kind : `${kind}.${index}`);

/**
 * The highest row id of `kind` below which nothing is still to come: every partition has handed
 * out (and committed) the ids up to here, so a row with a lower id is either stored or never will
 * be. Readers that walk spans or traces by row id (the search indexer, online evaluators) stop
 * here: partitions commit in any order, so the highest id stored says nothing about the ones
 * below it. (A session may move to a lower id, its earliest candidate, proposeSessions.ts: never
 * to one at or below this mark, whose candidates were all proposed.)
 */
export const settledRowid = (kind: 'span' | 'trace' | 'session'): FragmentSqlToken =>
  sql.fragment`(SELECT coalesce(min(last), 0) FROM tracing_ids WHERE kind = ${kind} OR kind LIKE ${`${kind}.%`})`;
