/**
 * Metrics benchmark: `npm run bench:metrics [-- options]`.
 *
 * Times the metrics page's chart queries (projections/metrics/metricQueries.ts: the trace series
 * and the annotation-score series) on a project of N spans; the trace series of hour and day
 * buckets reads the hourly rollup, and is timed without it too (the exact query on the traces);
 * the score series reads the annotations by their target's project and start time, and is timed
 * as the join to the span rows it replaced too. The read models are written directly in SQL
 * (generate_series), not through OTLP ingest: the chart queries read only the `traces` rows (their
 * aggregates, as the projector keeps them), the rollup, and the annotations (the join also the
 * spans' project and start time); the rollup, the annotations read model's scope of targets and
 * the annotations' target start are filled the way their migrations fill them. Loading a million
 * spans through ingest takes longer than a session on a shared machine allows (bench:queries
 * loads that way; its `--only metrics` times the same request over HTTP). Each query is run
 * in-process through the server's pool, sequentially.
 *
 *   --backend postgres|pglite   (default postgres)
 *   --spans N                   (default 1000000)
 *   --spans-per-trace N         (default 7: bench:queries' generator makes 5–10)
 *   --days N                    spread of start times, ending now (default 30)
 *   --annotated N               spans with a scored annotation, of 3 names (default 10000)
 *   --iterations N              timed runs per query (default 50, after 3 warm-up)
 *   --pg-url URL                server for the scratch database (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --keep                      leave the scratch database (its URL is printed) to EXPLAIN the queries by hand
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'slonik';
import {
  annotationScoreBuckets,
  BUCKETS,
  bucketFor,
  exactTraceBuckets,
  traceMetricBuckets,
  type MetricWindow,
} from '../../projections/metrics/metricQueries.ts';
import { SCORED_TARGETS_BACKFILL } from '../../projections/annotations/targetStart.ts';
import { migrate, rawSql, splitStatements } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { percentile } from './percentile.ts';
import { seedTraceRows } from './seedTraceRows.ts';
import { createScratchDatabase, DEFAULT_PG_URL, postgresVersion } from './scratchDatabase.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    spans: { type: 'string', default: '1000000' },
    'spans-per-trace': { type: 'string', default: '7' },
    days: { type: 'string', default: '30' },
    annotated: { type: 'string', default: '10000' },
    iterations: { type: 'string', default: '50' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    keep: { type: 'boolean', default: false },
  },
});

const log = (message: string) => process.stderr.write(`[bench:metrics] ${message}\n`);
const DAY = 86_400_000;

const main = async () => {
  const spans = Number(args.spans);
  const perTrace = Number(args['spans-per-trace']);
  const traces = Math.ceil(spans / perTrace);
  const spreadMs = Number(args.days) * DAY;
  const iterations = Number(args.iterations);
  const scratch = args.backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_m') : null;
  const dir = scratch === null ? await mkdtemp(join(tmpdir(), 'loupe-bench-m-')) : null;
  const db = await openDatabase(scratch !== null ? { url: scratch.url } : { pgliteDataDir: join(dir!, 'pgdata') });
  try {
    await migrate(db.pool, allMigrations());
    const now = Date.now();
    await seedTraceRows(db.pool, { spans, perTrace, spreadMs, endMs: now }, log);
    await db.pool.query(sql.unsafe`
      INSERT INTO annotations (id, key, target, target_id, name, identifier, annotator_kind, score, metadata, source, actor, created_at, updated_at)
      SELECT a, 'k' || a, 'span', left(md5((a * ${Math.max(1, Math.floor(spans / Number(args.annotated)))})::text), 16),
        (ARRAY['correctness', 'relevance', 'toxicity'])[1 + a % 3], '', 'LLM', random(), '{}', 'API', 'bench', now(), now()
      FROM generate_series(1, ${Number(args.annotated)}) a`);
    // The annotations read model's own record of the targets (projections/annotations/targetScope.ts,
    // which it keeps from SpansIngested), then the target start times and the annotations' placement
    // filled the way annotations/0003 fills them for rows that predate it (targetStart.ts).
    const t2 = performance.now();
    await db.pool.query(sql.unsafe`INSERT INTO annotation_project_scope (project_id) SELECT project_id FROM projects`);
    await db.pool.query(sql.unsafe`
      INSERT INTO annotation_trace_scope (trace_id, project_id) SELECT t.trace_id, p.project_id FROM traces t JOIN projects p ON p.id = t.project_id`);
    for (let from = 0; from < spans; from += 200_000)
      await db.pool.query(sql.unsafe`
        INSERT INTO annotation_span_scope (span_id, trace_id) SELECT span_id, trace_id FROM spans WHERE id >= ${from} AND id < ${from + 200_000}`);
    await db.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`SET LOCAL statement_timeout = 0`);
      for (const statement of splitStatements(SCORED_TARGETS_BACKFILL)) await tx.query(rawSql(statement));
    });
    log(`annotation scope and target start times in ${((performance.now() - t2) / 1000).toFixed(0)} s`);
    await db.pool.query(sql.unsafe`VACUUM ANALYZE`);
    // The score series before the annotations kept their target's start: each annotation joined to its span or trace row.
    const joinedScoreBuckets = (w: MetricWindow) =>
      db.pool.any(sql.unsafe`
        WITH scored AS (
          SELECT a.name, s.start_time, a.score FROM annotations a JOIN spans s ON s.span_id = a.target_id
          WHERE a.target = 'span' AND a.score IS NOT NULL AND s.project_id = ${w.projectRowid}
            AND s.start_time >= ${w.start}::timestamptz AND s.start_time < ${w.end}::timestamptz
          UNION ALL
          SELECT a.name, t.start_time, a.score FROM annotations a JOIN traces t ON t.trace_id = a.target_id
          WHERE a.target = 'trace' AND a.score IS NOT NULL AND t.project_id = ${w.projectRowid}
            AND t.start_time >= ${w.start}::timestamptz AND t.start_time < ${w.end}::timestamptz
        )
        SELECT name, date_bin(${`${BUCKETS[w.bucket]} seconds`}::interval, start_time, 'epoch'::timestamptz) AS bucket,
          avg(score)::float8 AS mean, count(*)::int AS count
        FROM scored GROUP BY 1, 2 ORDER BY 1, 2`);
    const queries: { name: string; window: () => MetricWindow; run: (w: MetricWindow) => Promise<readonly unknown[]> }[] = [];
    const windowOf = (ms: number, shift: boolean) => () => {
      const end = now - (shift ? Math.floor(Math.random() * (spreadMs - ms)) : 0);
      return {
        projectRowid: 1,
        start: new Date(end - ms).toISOString(),
        end: new Date(end).toISOString(),
        bucket: bucketFor(end - ms, end),
      };
    };
    for (const [label, ms, shift] of [
      [`all ${args.days} days (day buckets)`, spreadMs, false],
      ['7 days (hour buckets)', 7 * DAY, false],
      ['24 hours anywhere (hour buckets)', DAY, true],
      ['1 hour anywhere (minute buckets)', 3_600_000, true],
    ] as const) {
      queries.push({
        name: `traces, errors, latency, tokens, cost: ${label}`,
        window: windowOf(ms, shift),
        run: (w) => traceMetricBuckets(db.pool, w),
      });
      // Before the rollup, every bucket size read the traces: the same query, for comparison.
      if (ms > 4 * 3_600_000)
        queries.push({
          name: `  (without the rollup: ${label})`,
          window: windowOf(ms, shift),
          run: (w) => exactTraceBuckets(db.pool, w),
        });
      queries.push({ name: `annotation scores: ${label}`, window: windowOf(ms, shift), run: (w) => annotationScoreBuckets(db.pool, w) });
      queries.push({
        name: `  (joined to the spans, as before: ${label})`,
        window: windowOf(ms, shift),
        run: (w) => joinedScoreBuckets(w),
      });
    }
    // Both score queries give the same series (the means to float8 rounding: summed in another order).
    {
      const w = windowOf(spreadMs, false)();
      const [ours, joined] = [await annotationScoreBuckets(db.pool, w), await joinedScoreBuckets(w)];
      const same =
        ours.length === joined.length &&
        ours.every((r, i) => {
          const j = joined[i] as { name: string; bucket: number; mean: number; count: number };
          return r.name === j.name && Number(r.bucket_us / 1000n) === j.bucket && r.count === j.count && Math.abs(r.mean - j.mean) < 1e-12;
        });
      log(`score series over all ${args.days} days: ${ours.length} points, ${same ? 'the same as' : 'DIFFERENT FROM'} the join's`);
      if (!same) process.exitCode = 1;
    }
    console.log(
      `== metrics chart queries on ${db.kind}, ${spans.toLocaleString('en-US')} spans in ${traces.toLocaleString('en-US')} traces over ${args.days} days, ${args.annotated} scored span annotations; ${iterations} sequential runs each (after 3 warm-up), in-process`,
    );
    for (const q of queries) {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < iterations + 3; i++) {
        const w = q.window();
        const started = performance.now();
        const result = await q.run(w);
        if (i >= 3) {
          times.push(performance.now() - started);
          rows += result.length;
        }
      }
      console.log(
        `  ${q.name.padEnd(64)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(times, 95).toFixed(1).padStart(7)} ms  buckets ${(rows / iterations).toFixed(0)}`,
      );
    }
    if (scratch !== null) console.log(`(${await postgresVersion(scratch.url)})`);
  } finally {
    await db.close();
    if (args.keep && scratch !== null) log(`kept ${scratch.url}`);
    else await scratch?.drop();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
};

await main();
process.exit(0);
