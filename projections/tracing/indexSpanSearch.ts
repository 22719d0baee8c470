import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { spanWords } from './spanTextSearch.ts';
import { settledRowid } from './tracingPartitions.ts';

/** Advisory lock class of an indexing transaction: several processes on one database index one at a time. */
const SPAN_SEARCH_LOCK = 7305033;

export type SpanSearchStep = {
  /** Spans whose words this step wrote (a span indexed already, by another process, counts too). */
  readonly indexed: number;
  /** Whether more spans may wait: the step took as many as it was allowed. */
  readonly more: boolean;
};

/**
 * Writes the search words (`spanTextSearch.ts`) of up to `limit` spans that have none yet, oldest
 * first, in one transaction. The spans above the highest indexed row id are exactly those: the
 * tracing projection is the only writer of span rows and hands out their ids in log order, and
 * only settled ids are taken (tracingPartitions.ts: partitions commit in any order), so a
 * snapshot sees every span up to that id that will ever have it. A deleted
 * span takes its words with it (ON DELETE CASCADE); when that was the highest, the spans above it
 * are read again and their rows are left as they are. A span deleted while this step reads it
 * fails the step (the foreign key): the next step no longer sees it. When another process is
 * indexing, this one does nothing.
 */
export const indexSpanSearch = async (pool: DatabasePool, limit: number): Promise<SpanSearchStep> =>
  pool.transaction(async (tx) => {
    const mine = await tx.oneFirst(sql.type(z.object({ locked: z.boolean() }))`
      SELECT pg_try_advisory_xact_lock(${SPAN_SEARCH_LOCK}, 0) AS locked`);
    if (!mine) return { indexed: 0, more: false };
    const indexed = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
      WITH next AS (
        SELECT s.id, s.start_time, ${spanWords('s')} AS words FROM spans s
        WHERE s.id > (SELECT coalesce(max(span_rowid), 0) FROM span_search) AND s.id <= ${settledRowid('span')}
        ORDER BY s.id LIMIT ${limit}
      ), written AS (
        INSERT INTO span_search (span_rowid, span_start, words) SELECT id, start_time, words FROM next
          ON CONFLICT (span_rowid, span_start) DO NOTHING
      )
      SELECT count(*)::int AS n FROM next`);
    return { indexed, more: indexed >= limit };
  });

/** The highest span row id with words, and the highest there is: spans above the first wait for their words. */
export const spanSearchProgress = async (pool: DatabasePool): Promise<{ readonly indexed: number; readonly newest: number }> =>
  pool.one(sql.type(z.object({ indexed: z.number(), newest: z.number() }))`
    SELECT (SELECT coalesce(max(span_rowid), 0) FROM span_search)::float8 AS indexed,
      least((SELECT coalesce(max(id), 0) FROM spans), ${settledRowid('span')})::float8 AS newest`);

/** Whether spans wait for their words (a cheap look at the two primary keys). */
export const spanSearchPending = async (pool: DatabasePool): Promise<boolean> => {
  const { indexed, newest } = await spanSearchProgress(pool);
  return newest > indexed;
};
