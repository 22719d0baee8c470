import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { expiredPeriods } from '../../domain/retention/expiredPeriods.ts';
import { rawSql } from '../migrate.ts';

/**
 * Spans (and their search words, `span_search`) are partitioned by the span's start time, one
 * partition per UTC week (Monday 00:00 to Monday 00:00), plus a default partition for the rest
 * (issue 40). Retention then takes a whole past week by dropping its two tables, instead of
 * deleting its rows one by one and vacuuming (`dropExpiredSpanPartitions`), and a query bounded in
 * time reads only the weeks it covers (the planner prunes the others).
 *
 * The tracing projection creates the weeks its spans need as it applies them
 * (`ensureSpanPartitions`): the current week and the next AHEAD_WEEKS ahead of time, and any week
 * from PAST_WEEKS back that a late span starts in. A span starting outside that window (a client
 * clock years off, a backfill of old data) goes to the default partition, so no client decides how
 * many tables there are: every partition costs each query that cannot prune (a lookup by row id
 * or span id probes every one). A week is not created while the default partition holds spans of
 * that week (sent early by a skewed clock): they would have to move, and the week's spans keep
 * going to the default partition instead (retention then deletes them row by row, as before).
 *
 * Unique keys of a partitioned table must hold the partition key: the primary key is (id,
 * start_time), and a span id's uniqueness is kept by the projector (applySpansIngested looks the
 * ids up before inserting), not by an index. Names are unqualified, as the rest of the read model:
 * a rebuild creates the partitions in its scratch schema and moves them with their tables.
 */
export const PAST_WEEKS = 8;
export const AHEAD_WEEKS = 2;
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** 1970-01-05 was a Monday: weeks are counted from it. */
const MONDAY_MS = 4 * 24 * 3600 * 1000;

/** The partitioned tables, in the order partitions are created (span_search's rows reference spans'). */
export const PARTITIONED = ['spans', 'span_search'] as const;

/** The Monday (UTC, ms since the epoch) of the week holding `ms`. */
export const weekOf = (ms: number): number => Math.floor((ms - MONDAY_MS) / WEEK_MS) * WEEK_MS + MONDAY_MS;

/** The partition of `table` holding the week starting at `week` (e.g. spans_p20261123). */
export const partitionName = (table: string, week: number): string =>
  `${table}_p${new Date(week).toISOString().slice(0, 10).replaceAll('-', '')}`;

const iso = (ms: number) => new Date(ms).toISOString();

/** The statements creating the week `week` of every partitioned table. */
const createWeek = (week: number) =>
  PARTITIONED.map((table) =>
    rawSql(
      `CREATE TABLE ${partitionName(table, week)} PARTITION OF ${table} FOR VALUES FROM ('${iso(week)}') TO ('${iso(week + WEEK_MS)}')`,
    ),
  );

/** The weeks (Mondays, ms) that have a partition of `spans`, read from the catalogue (bounds in the name). */
const existingWeeks = async (tx: DatabaseTransactionConnection): Promise<Set<number>> => {
  const names = await tx.anyFirst(sql.type(z.object({ relname: z.string() }))`
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'spans'::regclass`);
  const weeks = new Set<number>();
  for (const name of names) {
    const m = /^spans_p(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (m) weeks.add(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  }
  return weeks;
};

/**
 * Creates the weeks these span start times (epoch microseconds) fall in, within the window around
 * `now`, and the weeks ahead of `now`. Creating a partition locks the parent table until the
 * projection's transaction commits (readers wait that long), which happens about once a week.
 */
export const ensureSpanPartitions = async (
  tx: DatabaseTransactionConnection,
  startMicros: Iterable<bigint | number>,
  now: number,
): Promise<void> => {
  const current = weekOf(now);
  const wanted = new Set<number>();
  for (let w = 0; w <= AHEAD_WEEKS; w++) wanted.add(current + w * WEEK_MS);
  const earliest = current - PAST_WEEKS * WEEK_MS;
  const latest = current + AHEAD_WEEKS * WEEK_MS;
  for (const micros of startMicros) {
    const week = weekOf(Number(micros) / 1000);
    if (week >= earliest && week <= latest) wanted.add(week);
  }
  const existing = await existingWeeks(tx);
  for (const week of [...wanted].sort((a, b) => a - b)) {
    if (existing.has(week)) continue;
    const early = await tx.oneFirst(sql.type(z.object({ early: z.boolean() }))`
      SELECT EXISTS (SELECT 1 FROM spans_default WHERE start_time >= ${iso(week)}::timestamptz
        AND start_time < ${iso(week + WEEK_MS)}::timestamptz) AS early`);
    if (early) continue;
    for (const statement of createWeek(week)) await tx.query(statement);
  }
};

/**
 * Drops the weeks these expiries take whole (`expiredPeriods`: ended by their cut-off) whose every
 * span is gone from the read model's point of view: each belongs to a trace this transaction has
 * deleted (a span always has its trace's row; the caller deletes the expired traces first).
 * Returns the weeks dropped. A week
 * still holding a span of a live trace (another project's, one past this run's budget) stays,
 * and the caller deletes the expired rows from it. The tables are locked spans first, then
 * span_search, as the search indexer takes them, so the two cannot deadlock.
 */
export const dropExpiredSpanPartitions = async (tx: DatabaseTransactionConnection, expiries: readonly StoredEvent[]): Promise<number[]> => {
  const weeks = [...(await existingWeeks(tx))].sort((a, b) => a - b).map((start) => ({ start, end: start + WEEK_MS }));
  const dropped: number[] = [];
  for (const { start: week } of expiredPeriods(expiries, weeks)) {
    const spans = partitionName('spans', week);
    const live = await tx.oneFirst(sql.type(z.object({ live: z.boolean() }))`
      SELECT EXISTS (SELECT 1 FROM ${sql.identifier([spans])} s JOIN traces t ON t.id = s.trace_rowid) AS live`);
    if (live) continue;
    if (dropped.length === 0) await tx.query(sql.unsafe`LOCK TABLE spans, span_search IN ACCESS EXCLUSIVE MODE`);
    // The words first: spans' rows are referenced by them.
    for (const table of [...PARTITIONED].reverse()) {
      const partition = partitionName(table, week);
      await tx.query(rawSql(`ALTER TABLE ${table} DETACH PARTITION ${partition}`));
      await tx.query(rawSql(`DROP TABLE ${partition}`));
    }
    dropped.push(week);
  }
  return dropped;
};

/**
 * The migration turning the unpartitioned `spans` and `span_search` of earlier versions into
 * partitioned ones, rows and indexes kept (every index the earlier migrations made on spans is
 * made again on the partitioned table, by its definition). It rewrites both tables, in the one
 * migration transaction: minutes for millions of spans. Existing spans get the weeks they started
 * in back to 52 weeks (older ones go to the default partition), and the weeks ahead are created.
 */
export const SPAN_PARTITIONS_MIGRATION = `
  ALTER TABLE span_search RENAME TO span_search_unpartitioned;
  ALTER TABLE spans RENAME TO spans_unpartitioned;
  ALTER INDEX spans_pkey RENAME TO spans_unpartitioned_pkey;
  ALTER INDEX span_search_pkey RENAME TO span_search_unpartitioned_pkey;
  CREATE TABLE spans (LIKE spans_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION
    INCLUDING STORAGE INCLUDING GENERATED) PARTITION BY RANGE (start_time);
  CREATE TABLE spans_default PARTITION OF spans DEFAULT;
  CREATE TABLE span_search (
    span_rowid bigint NOT NULL,
    span_start timestamptz NOT NULL,
    words tsvector NOT NULL
  ) PARTITION BY RANGE (span_start);
  CREATE TABLE span_search_default PARTITION OF span_search DEFAULT;
  DO $$
  DECLARE w timestamptz;
  BEGIN
    FOR w IN
      SELECT DISTINCT date_trunc('week', start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM spans_unpartitioned
        WHERE start_time >= now() - interval '52 weeks' AND start_time < now() + interval '${AHEAD_WEEKS + 1} weeks'
      UNION SELECT (date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + n * interval '1 week'
        FROM generate_series(0, ${AHEAD_WEEKS}) n
    LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF spans FOR VALUES FROM (%L) TO (%L)',
        'spans_p' || to_char(w AT TIME ZONE 'UTC', 'YYYYMMDD'), w, w + interval '1 week');
      EXECUTE format('CREATE TABLE %I PARTITION OF span_search FOR VALUES FROM (%L) TO (%L)',
        'span_search_p' || to_char(w AT TIME ZONE 'UTC', 'YYYYMMDD'), w, w + interval '1 week');
    END LOOP;
  END $$;
  INSERT INTO spans SELECT * FROM spans_unpartitioned;
  INSERT INTO span_search (span_rowid, span_start, words)
    SELECT w.span_rowid, s.start_time, w.words FROM span_search_unpartitioned w JOIN spans_unpartitioned s ON s.id = w.span_rowid;
  ALTER TABLE spans ADD PRIMARY KEY (id, start_time);
  CREATE INDEX spans_span_id ON spans (span_id);
  DO $$
  DECLARE r record;
  BEGIN
    FOR r IN
      SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = 'spans_unpartitioned'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)
    LOOP
      EXECUTE format('DROP INDEX %I', r.indexname);
      EXECUTE regexp_replace(r.indexdef, ' ON \\S+ USING ', ' ON spans USING ');
    END LOOP;
  END $$;
  ALTER TABLE span_search ADD PRIMARY KEY (span_rowid, span_start);
  ALTER TABLE span_search ADD FOREIGN KEY (span_rowid, span_start) REFERENCES spans (id, start_time) ON DELETE CASCADE;
  CREATE INDEX span_search_words_p ON span_search USING gin (words);
  DROP TABLE span_search_unpartitioned;
  DROP TABLE spans_unpartitioned;
  ALTER INDEX span_search_words_p RENAME TO span_search_words;
`;
