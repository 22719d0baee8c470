/**
 * Ingest benchmark: `npm run bench:ingest [-- options]`.
 *
 * Starts `loupe serve` as a child process (embedded PGlite in a temp working dir, and/or a scratch
 * Postgres database), sends realistic OpenInference spans as OTLP/protobuf batches from concurrent
 * senders, and measures spans/s acknowledged and spans/s visible through REST. In the same run it
 * COPYs the same span rows into a scratch table shaped like the spans read model on the same
 * database, and prints both numbers and the ratio. It also appends the run's own span events to the
 * log again with nothing else running (appendBaseline.ts) and prints the ceiling those two
 * baselines put on any projection here (`ceiling` below). Then, with the server stopped, it replays the
 * tracing read model over the same log (`rebuildProjection`, the path a rebuild and the live
 * runner share) and reports the projection's own rate and CPU, which a busy machine disturbs less
 * than the rates above (issue 14 item 1, BENCHMARKS.md §9), and then writes every span's full-text
 * search words again the way the server's indexer does behind the projection (its own rate and CPU).
 *
 * The figures to follow from change to change (issue 33, BENCHMARKS.md §22): visible spans/s as a
 * share of the log-append-alone rate of the same run (unlike the ceiling, it does not move when
 * rows get heavier), the read model's write CPU per span (the replay's), and how long after the
 * spans were listed full-text search found the last requests' words (search trails ingest).
 *
 *   --backend pglite|postgres|both   (default both)
 *   --postgres-spans N               (default 100000)
 *   --pglite-spans N                 (default 30000)
 *   --concurrency N                  (default 4)
 *   --batch N                        (default 512)
 *   --pg-url URL                     server to create the scratch database on
 *                                    (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --json FILE                      also write the results as JSON
 *   --keep                           keep the scratch database / working dir
 *   --text-bytes N                   size of each input.value / output.value (default 2048)
 *   --no-replay                      skip the projection replay (below)
 *   --node-flag FLAG                 extra node/V8 flag for the server (repeatable), e.g. --cpu-prof
 *   --alert-rules N                  N alert rules on the project, evaluated while the spans arrive (default 0;
 *                                    issue 37: ingest speed is unchanged with 1,000 running): every trace metric,
 *                                    no two on one window, one in four a regression (alertRuleMix.ts)
 *   --alert-interval S               their evaluation interval in seconds (default 10)
 *   (BENCH_SERVER_LOG=FILE in the environment appends everything the server writes to FILE)
 */
import { PGlite } from '@electric-sql/pglite';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sql } from 'slonik';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { rebuildProjection } from '../../projections/rebuildProjection.ts';
import { indexSpanSearch } from '../../projections/tracing/indexSpanSearch.ts';
import { tracingProjection } from '../../projections/tracing/tracingProjection.ts';
import { openDatabase, type Database } from '../database/openDatabase.ts';
import { SERVER_NODE_FLAGS } from '../serverNodeFlags.ts';
import { appendAgain, spanEventsOf, type AppendResult } from './appendBaseline.ts';
import { copyChunks, copyIntoPglite, copyIntoPostgres, type CopyResult } from './copyBaseline.ts';
import {
  machineBusySeconds,
  peakRssBytes,
  processCpuSeconds,
  resetPeakRss,
  startBackendCpuSampler,
  waitForQuietMachine,
} from './cpuUsage.ts';
import { createAlertRules } from './alertRuleMix.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { waitUntilListed, waitUntilSearchable } from './restClient.ts';
import { createScratchDatabase, DEFAULT_PG_URL, postgresVersion } from './scratchDatabase.ts';
import { sendBatches } from './senders.ts';
import { passedOnEnvironment, startServerProcess, type ServerProcess } from './serverProcess.ts';
import { createSpanGenerator, spanBatches, type GeneratedSpan } from './spanGenerator.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    'postgres-spans': { type: 'string', default: '100000' },
    'pglite-spans': { type: 'string', default: '30000' },
    concurrency: { type: 'string', default: '4' },
    batch: { type: 'string', default: '512' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'text-bytes': { type: 'string', default: '2048' },
    'no-replay': { type: 'boolean', default: false },
    'node-flag': { type: 'string', multiple: true, default: [] },
    'alert-rules': { type: 'string', default: '0' },
    'alert-interval': { type: 'string', default: '10' },
  },
});

const PROJECT = 'bench-ingest';
const VISIBLE_TIMEOUT_MS = 15 * 60_000;
const concurrency = Number(args.concurrency);
const batchSize = Number(args.batch);

type Backend = 'pglite' | 'postgres';

type IngestResult = {
  backend: Backend;
  spans: number;
  batches: number;
  concurrency: number;
  batchSize: number;
  requestBytes: number;
  ackSeconds: number;
  visibleSeconds: number;
  /** Until full-text search found a word of each sender's last request (search trails the list). */
  searchableSeconds: number;
  ackedPerSecond: number;
  visiblePerSecond: number;
  ackLatencyMs: { p50: number; p95: number; max: number };
  busyAnswers: number;
  failures: Record<string, number>;
  rowsInReadModel: number;
  serverCpuSeconds: number;
  serverPeakRssBytes: number | null;
  /** The peak while the server started (before the run; on an empty PGlite directory, initdb). */
  serverStartPeakRssBytes: number | null;
  /** The benchmark process itself (sending, REST polling). */
  benchCpuSeconds: number;
  /** This database's Postgres backends (null on PGlite, which runs inside the server process). */
  postgresCpuSeconds: number | null;
  /** All cores, all processes (other work on the machine included). */
  machineCpuSeconds: number;
  eventsBytes: number | null;
  spansBytes: number | null;
  copy: { label: string; result: CopyResult }[];
  /** The run's SpansIngested events appended again, nothing else (appendBaseline.ts). */
  append: AppendResult;
  replay: ReplayResult | null;
  /** After the replay: every span's search words written again, nothing else running. */
  searchIndex: ReplayResult | null;
};

/** The tracing read model rebuilt from the log, nothing else running: its rate and what it cost. */
type ReplayResult = { spans: number; seconds: number; spansPerSecond: number; nodeCpuSeconds: number; postgresCpuSeconds: number | null };

/**
 * Replays the tracing projection over the whole log into scratch tables and swaps them in (the
 * rows come out the same: rebuild = live). Node CPU is this process's (PGlite's included, which
 * runs in it); Postgres CPU that of the database's backends.
 */
const replayTracing = async (
  database: Database,
  spans: number,
  postgresBackendPids: (() => Promise<number[]>) | null,
): Promise<ReplayResult> => {
  const backends = postgresBackendPids ? startBackendCpuSampler(postgresBackendPids) : null;
  await backends?.ready;
  const before = process.cpuUsage();
  const started = performance.now();
  await rebuildProjection(database.pool, createPostgresEventStore(database.pool), tracingProjection, {
    storeInTransaction: (tx) => createPostgresEventStore(tx),
    batchSize: 20, // the live runner's batch, not a rebuild's 50
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(before);
  const postgresCpuSeconds = backends ? await backends.stop() : null;
  const stored = Number(await database.pool.oneFirst(sql.unsafe`SELECT count(*) FROM spans`));
  if (stored !== spans) throw new Error(`the replay left ${stored} spans, expected ${spans}`);
  return { spans, seconds, spansPerSecond: spans / seconds, nodeCpuSeconds: (cpu.user + cpu.system) / 1e6, postgresCpuSeconds };
};

/**
 * Writes every span's full-text search words (the replay swapped in an empty table), as the
 * server's indexer does behind the projection, with nothing else running: its rate and CPU.
 */
const indexSearchAlone = async (
  database: Database,
  spans: number,
  postgresBackendPids: (() => Promise<number[]>) | null,
  chunk: number,
): Promise<ReplayResult> => {
  const backends = postgresBackendPids ? startBackendCpuSampler(postgresBackendPids) : null;
  await backends?.ready;
  const before = process.cpuUsage();
  const started = performance.now();
  let indexed = 0;
  for (let step = await indexSpanSearch(database.pool, chunk); ; step = await indexSpanSearch(database.pool, chunk)) {
    indexed += step.indexed;
    if (!step.more) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(before);
  const postgresCpuSeconds = backends ? await backends.stop() : null;
  if (indexed !== spans) throw new Error(`the search indexer wrote the words of ${indexed} spans, expected ${spans}`);
  return { spans, seconds, spansPerSecond: spans / seconds, nodeCpuSeconds: (cpu.user + cpu.system) / 1e6, postgresCpuSeconds };
};

/**
 * The append baseline on a quiet machine, then `close`: on PGlite not `database.close()`, which
 * would close PGlite itself while the COPY baseline still needs it.
 */
const measureAppend = async (database: Database, streams: number, close: (d: Database) => Promise<void>): Promise<AppendResult> => {
  try {
    const { events, spans } = await spanEventsOf(database);
    await waitForQuietMachine(60_000, 0.25, cores);
    log(`appending the run's ${events.length} span events again, ${streams} appender(s), nothing else`);
    return await appendAgain(database, events, spans, streams);
  } finally {
    await close(database);
  }
};

/**
 * The highest visible rate any projection could reach here: every visible span was appended to the
 * log once and written as a read-model row once, so it costs at least the append baseline's CPU per
 * span plus the cheapest COPY baseline's per row, and the machine has `cores` of CPU per second
 * (PGlite: one thread, so wall time). Decoding, reading the log back, traces and sessions are
 * left out, so the real bound is lower.
 */
const ceiling = (r: IngestResult): { perSecond: number; target: CopyResult } => {
  const cost = (seconds: number, cpu: number, n: number) => (r.backend === 'pglite' ? seconds : cpu / cores) / n;
  const copyPerRow = Math.min(...r.copy.map(({ result: c }) => cost(c.seconds, c.machineCpuSeconds, c.rows)));
  const perSpan = cost(r.append.seconds, r.append.machineCpuSeconds, r.append.spans) + copyPerRow;
  // The issue's target compares with the last COPY baseline (Postgres: 4 streams; PGlite: the only one).
  return { perSecond: 1 / perSpan, target: r.copy.at(-1)!.result };
};

const onGiveUp: Array<() => void> = [];
const log = (message: string) => process.stderr.write(`[bench:ingest] ${message}\n`);

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

const prepare = (spans: number) => {
  const generator = createSpanGenerator({ seed: 7, textBytes: Number(args['text-bytes']) });
  const warmup = [...spanBatches(generator, batchSize * 2, batchSize)];
  const batches = [...spanBatches(generator, spans, batchSize)];
  const needles = markLastBatches(batches);
  log(`encoding ${batches.length} batches of ${batchSize} spans ...`);
  const bodies = batches.map((b) => encodeExportRequest(b, PROJECT));
  return { warmup, batches, bodies, needles, requestBytes: bodies.reduce((n, b) => n + b.length, 0) };
};

/**
 * A word of its own in the output of the first span of each of the last `concurrency` requests:
 * once search finds all of them, it has caught up with the run (the indexer goes in log order).
 */
const markLastBatches = (batches: GeneratedSpan[][]): string[] => {
  const run = Date.now().toString(36);
  return batches.slice(-concurrency).map((batch, i) => {
    const word = `needle${run}x${i}`;
    const [first, ...rest] = batch;
    if (!first) return word;
    const attributes = first.attributes.map(([k, v]) =>
      k === 'output.value' ? ([k, { str: `${word} ${'str' in v ? v.str : ''}` }] as const) : ([k, v] as const),
    );
    batch.splice(0, batch.length, { ...first, attributes }, ...rest);
    return word;
  });
};

const waitVisible = (server: ServerProcess, batches: readonly (readonly GeneratedSpan[])[], timeoutMs: number) =>
  waitUntilListed(server.url, PROJECT, batches.flat(), timeoutMs);

const runIngest = async (backend: Backend, spanCount: number): Promise<IngestResult> => {
  const { warmup, batches, bodies, needles, requestBytes } = prepare(spanCount);
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-bench-'));
  const scratch = backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench') : null;
  // SERVICE_*, NODE_OPTIONS and MALLOC_* from the bench's environment reach the server, as in bench:idle-memory.
  const env: Record<string, string> = { ...passedOnEnvironment(), SERVICE_WORKING_DIR: workingDir };
  if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
  let server: ServerProcess | null = null;
  const killOnTimeout = () => void server?.kill();
  onGiveUp.push(killOnTimeout);
  try {
    log(`${backend}: starting the server (${scratch ? `database ${scratch.name}` : `working dir ${workingDir}`})`);
    server = await startServerProcess({ env, startTimeoutMs: 120_000, nodeFlags: [...SERVER_NODE_FLAGS, ...args['node-flag']!] });
    const otlpUrl = `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`;
    // The start's peak apart (on an empty PGlite directory it is initdb's, BENCHMARKS.md §5).
    const startPeakRss = peakRssBytes(server.pid);
    if (!resetPeakRss(server.pid)) log(`${backend}: cannot reset the server's peak RSS; "during the run" includes the start`);

    // Warm-up (creates the project, JITs the hot paths); not counted.
    const warm = await sendBatches({
      url: otlpUrl,
      batches: warmup.length,
      body: (i) => encodeExportRequest(warmup[i]!, PROJECT),
      concurrency: 1,
    });
    if (warm.acked.length !== warmup.length) throw new Error(`warm-up failed: ${JSON.stringify([...warm.failures])}`);
    await waitVisible(server, warmup, 120_000);
    const alertRules = Number(args['alert-rules']);
    if (alertRules > 0) {
      await createAlertRules(server.url, PROJECT, alertRules, Number(args['alert-interval']));
      log(`${backend}: ${alertRules} alert rules evaluated every ${args['alert-interval']} s from now on`);
    }

    const quiet = await waitForQuietMachine(120_000, 0.25, cores);
    if (quiet >= 0.25) log(`warning: the machine is ${(quiet * 100).toFixed(0)} % busy with other work; numbers will be low`);
    const monitor = scratch ? new pg.Client({ connectionString: scratch.url }) : null;
    await monitor?.connect();
    const backends = monitor
      ? startBackendCpuSampler(async () =>
          (
            await monitor.query<{ pid: number }>(
              'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            )
          ).rows.map((r) => r.pid),
        )
      : null;
    await backends?.ready;
    const machineBefore = machineBusySeconds();
    const benchBefore = process.cpuUsage();
    const serverCpuBefore = processCpuSeconds(server.pid);
    log(`${backend}: sending ${spanCount} spans in ${batches.length} batches from ${concurrency} senders`);
    const started = performance.now();
    const stats = await sendBatches({ url: otlpUrl, batches: bodies.length, body: (i) => bodies[i]!, concurrency });
    const ackSeconds = (performance.now() - started) / 1000;
    if (stats.acked.length !== batches.length) {
      throw new Error(`only ${stats.acked.length} of ${batches.length} batches acknowledged: ${JSON.stringify([...stats.failures])}`);
    }
    log(`${backend}: all acknowledged after ${ackSeconds.toFixed(1)} s; waiting until REST lists them`);
    // The last `concurrency` acks are each sender's final request; every other request committed
    // before one of them started, so once these are listed everything is projected.
    const lastBatches = stats.acked.slice(-concurrency).map((i) => batches[i]!);
    await waitVisible(server, lastBatches, VISIBLE_TIMEOUT_MS);
    const visibleSeconds = (performance.now() - started) / 1000;
    const serverCpuSeconds = processCpuSeconds(server.pid) - serverCpuBefore;
    const bench = process.cpuUsage(benchBefore);
    const benchCpuSeconds = (bench.user + bench.system) / 1e6;
    const machineCpuSeconds = machineBusySeconds() - machineBefore;
    const postgresCpuSeconds = backends ? await backends.stop() : null;
    await monitor?.end();
    log(`${backend}: visible after ${visibleSeconds.toFixed(1)} s; waiting until search finds the last requests' words`);
    await waitUntilSearchable(server.url, PROJECT, needles, VISIBLE_TIMEOUT_MS);
    const searchableSeconds = (performance.now() - started) / 1000;
    log(`${backend}: searchable after ${searchableSeconds.toFixed(1)} s`);
    // After the search indexer caught up too: on PGlite it runs in the server process.
    const serverPeakRss = peakRssBytes(server.pid);
    const stopped = await server.stop();
    server = null;
    if (stopped !== 'exit 0') log(`${backend}: server stopped with ${stopped}`);

    const sortedLatencies = [...stats.latencies].sort((a, b) => a - b);
    const latencies = { p50: percentile(sortedLatencies, 0.5), p95: percentile(sortedLatencies, 0.95), max: sortedLatencies.at(-1) ?? 0 };
    const total = spanCount + warmup.flat().length;
    const all = batches.flat();
    bodies.length = 0;
    log(`${backend}: building the COPY baseline rows`);
    const chunks = copyChunks(all, batchSize);
    const copy: IngestResult['copy'] = [];
    let rowsInReadModel: number;
    let eventsBytes: number | null = null;
    let spansBytes: number | null = null;
    let replay: ReplayResult | null = null;
    let searchIndex: ReplayResult | null = null;
    let append: AppendResult | undefined;
    if (scratch) {
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      rowsInReadModel = Number((await client.query('SELECT count(*) AS n FROM spans')).rows[0].n);
      const sizes = (await client.query(`SELECT pg_total_relation_size('events') AS e, pg_total_relation_size('spans') AS s`)).rows[0];
      eventsBytes = Number(sizes.e);
      spansBytes = Number(sizes.s);
      if (!args['no-replay']) {
        await waitForQuietMachine(60_000, 0.25, cores);
        log(`${backend}: replaying the tracing projection`);
        const database = await openDatabase({ url: scratch.url, maximumPoolSize: 2 });
        try {
          const pids = async () =>
            (
              await client.query<{ pid: number }>(
                'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
              )
            ).rows.map((r) => r.pid);
          replay = await replayTracing(database, total, pids);
          await waitForQuietMachine(60_000, 0.25, cores);
          log(`${backend}: writing every span's search words again`);
          searchIndex = await indexSearchAlone(database, total, pids, 1000);
        } finally {
          await database.close();
        }
      }
      await client.end();
      append = await measureAppend(await openDatabase({ url: scratch.url, maximumPoolSize: concurrency + 1 }), concurrency, (d) =>
        d.close(),
      );
      await waitForQuietMachine(60_000, 0.25, cores);
      log(`${backend}: COPY baseline, one stream`);
      copy.push({
        label: 'COPY, one stream',
        result: await copyIntoPostgres(scratch.url, chunks, all.length, { streams: 1, perChunk: false }),
      });
      await waitForQuietMachine(60_000, 0.25, cores);
      log(`${backend}: COPY baseline, ${concurrency} streams, one COPY per ${batchSize}-row batch`);
      copy.push({
        label: `COPY, ${concurrency} streams × one COPY per ${batchSize} rows`,
        result: await copyIntoPostgres(scratch.url, chunks, all.length, { streams: concurrency, perChunk: true }),
      });
    } else {
      const db = await PGlite.create(join(workingDir, 'pgdata'));
      try {
        rowsInReadModel = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM spans')).rows[0]!.n;
        const sizes = (
          await db.query<{ e: string; s: string }>(
            `SELECT pg_total_relation_size('events')::text AS e, pg_total_relation_size('spans')::text AS s`,
          )
        ).rows[0]!;
        eventsBytes = Number(sizes.e);
        spansBytes = Number(sizes.s);
        if (!args['no-replay']) {
          await waitForQuietMachine(60_000, 0.25, cores);
          log(`${backend}: replaying the tracing projection`);
          const database = await openDatabase({ pglite: db, description: 'bench' });
          // Not database.close(): that would close PGlite, which the COPY baseline still needs.
          try {
            replay = await replayTracing(database, total, null);
            await waitForQuietMachine(60_000, 0.25, cores);
            log(`${backend}: writing every span's search words again`);
            searchIndex = await indexSearchAlone(database, total, null, 250);
          } finally {
            await database.pool.end();
          }
        }
        append = await measureAppend(await openDatabase({ pglite: db, description: 'bench' }), 1, (d) => d.pool.end());
        await waitForQuietMachine(60_000, 0.25, cores);
        log(`${backend}: COPY baseline, one COPY FROM '/dev/blob' per ${batchSize}-row batch`);
        copy.push({ label: `COPY FROM '/dev/blob', one per ${batchSize} rows`, result: await copyIntoPglite(db, chunks, all.length) });
      } finally {
        await db.close();
      }
    }
    if (rowsInReadModel !== total) throw new Error(`the spans table holds ${rowsInReadModel} rows, expected ${total}`);
    if (!append) throw new Error('the append baseline did not run');
    return {
      backend,
      spans: spanCount,
      batches: batches.length,
      concurrency,
      batchSize,
      requestBytes,
      ackSeconds,
      visibleSeconds,
      searchableSeconds,
      ackedPerSecond: spanCount / ackSeconds,
      visiblePerSecond: spanCount / visibleSeconds,
      ackLatencyMs: latencies,
      busyAnswers: stats.busy,
      failures: Object.fromEntries(stats.failures),
      rowsInReadModel,
      serverCpuSeconds,
      serverPeakRssBytes: serverPeakRss,
      serverStartPeakRssBytes: startPeakRss,
      benchCpuSeconds,
      postgresCpuSeconds,
      machineCpuSeconds,
      eventsBytes,
      spansBytes,
      copy,
      append,
      replay,
      searchIndex,
    };
  } catch (error) {
    if (server) log(`server output:\n${server.output().slice(-4000)}`);
    throw error;
  } finally {
    if (server) await server.kill();
    if (!args.keep) {
      await scratch?.drop();
      await rm(workingDir, { recursive: true, force: true });
    } else {
      log(`kept ${scratch ? scratch.url : workingDir}`);
    }
  }
};

const cores = availableParallelism();
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const report = (r: IngestResult): string => {
  const lines = [
    `== ${r.backend}: ${fmt(r.spans)} spans, ${r.batches} OTLP/protobuf requests of ${r.batchSize} (${(r.requestBytes / r.spans).toFixed(0)} B/span), ${r.concurrency} senders${Number(args['alert-rules']) > 0 ? `, ${args['alert-rules']} alert rules evaluated every ${args['alert-interval']} s` : ''}`,
    `  acknowledged: ${fmt(r.ackedPerSecond)} spans/s (${r.ackSeconds.toFixed(1)} s; request time p50 ${fmt(r.ackLatencyMs.p50)} ms, p95 ${fmt(r.ackLatencyMs.p95)} ms; ${r.busyAnswers} × 503)`,
    `  visible via REST: ${fmt(r.visiblePerSecond)} spans/s (${r.visibleSeconds.toFixed(1)} s; visible / acknowledged ${(r.visiblePerSecond / r.ackedPerSecond).toFixed(2)}); spans table rows: ${fmt(r.rowsInReadModel)}`,
    `  CPU until visible: machine ${r.machineCpuSeconds.toFixed(1)} of ${(cores * r.visibleSeconds).toFixed(1)} CPU-s (${cores} cores × ${r.visibleSeconds.toFixed(1)} s): server process ${r.serverCpuSeconds.toFixed(1)}, ${r.postgresCpuSeconds === null ? '' : `Postgres backends ${r.postgresCpuSeconds.toFixed(1)}, `}bench client ${r.benchCpuSeconds.toFixed(1)}, everything else ${(r.machineCpuSeconds - r.serverCpuSeconds - r.benchCpuSeconds - (r.postgresCpuSeconds ?? 0)).toFixed(1)}`,
    `  sizes: events ${((r.eventsBytes ?? 0) / 1e6).toFixed(0)} MB, spans ${((r.spansBytes ?? 0) / 1e6).toFixed(0)} MB; server peak RSS ${((r.serverPeakRssBytes ?? 0) / 1e6).toFixed(0)} MB during the run (${((r.serverStartPeakRssBytes ?? 0) / 1e6).toFixed(0)} MB while starting)`,
  ];
  for (const { label, result } of r.copy) {
    lines.push(
      `  raw ${label}: ${fmt(result.rowsPerSecond)} rows/s (${result.seconds.toFixed(1)} s)  →  ratio acknowledged ${(r.ackedPerSecond / result.rowsPerSecond).toFixed(2)}, visible ${(r.visiblePerSecond / result.rowsPerSecond).toFixed(2)}`,
    );
  }
  const { append } = r;
  lines.push(
    `  visible / log append alone: ${(r.visiblePerSecond / append.spansPerSecond).toFixed(2)} (the share of the log's own rate that reaches the spans list; it does not move when rows get heavier, unlike the ceiling below)`,
    `  full-text search found the last requests' words ${(r.searchableSeconds - r.visibleSeconds).toFixed(1)} s after they were listed (${r.searchableSeconds.toFixed(1)} s after the start)`,
  );
  lines.push(
    `  log append alone (the run's ${fmt(append.events)} span events again, ${r.backend === 'pglite' ? 'one session' : `${r.concurrency} appenders`}): ${fmt(append.spansPerSecond)} spans/s (${append.seconds.toFixed(1)} s), machine CPU ${((append.machineCpuSeconds / append.spans) * 1e6).toFixed(0)} µs per span`,
  );
  for (const { label, result } of r.copy) {
    lines.push(`  machine CPU of raw ${label}: ${((result.machineCpuSeconds / result.rows) * 1e6).toFixed(0)} µs per row`);
  }
  const best = ceiling(r);
  lines.push(
    `  ceiling for visible (log append + the cheapest COPY per row, ${r.backend === 'pglite' ? 'on one thread' : `on all ${cores} cores`}, nothing else): ${fmt(best.perSecond)} spans/s  →  ${(best.perSecond / best.target.rowsPerSecond).toFixed(2)} × the last COPY baseline's rate; visible reached ${(r.visiblePerSecond / best.perSecond).toFixed(2)} of the ceiling`,
  );
  if (r.replay) {
    const { spansPerSecond, seconds, nodeCpuSeconds, postgresCpuSeconds } = r.replay;
    const cpu = nodeCpuSeconds + (postgresCpuSeconds ?? 0);
    lines.push(
      `  tracing projection replayed alone (rebuild, batches of 20 events): ${fmt(spansPerSecond)} spans/s (${seconds.toFixed(1)} s); CPU ${r.backend === 'pglite' ? `${nodeCpuSeconds.toFixed(1)} s (PGlite in process)` : `Node ${nodeCpuSeconds.toFixed(1)} s + Postgres ${(postgresCpuSeconds ?? 0).toFixed(1)} s`} = ${((cpu / r.replay.spans) * 1e6).toFixed(0)} µs per span`,
    );
    lines.push(
      `  read model write CPU per span (the replay's ${r.backend === 'pglite' ? 'PGlite and Node, one thread' : 'Postgres backends'}): ${(((r.backend === 'pglite' ? cpu : (postgresCpuSeconds ?? 0)) / r.replay.spans) * 1e6).toFixed(0)} µs`,
    );
  }
  if (r.searchIndex) {
    const { spansPerSecond, seconds, nodeCpuSeconds, postgresCpuSeconds } = r.searchIndex;
    const cpu = nodeCpuSeconds + (postgresCpuSeconds ?? 0);
    lines.push(
      `  search words written alone (every span again, as the indexer does behind the projection): ${fmt(spansPerSecond)} spans/s (${seconds.toFixed(1)} s); CPU ${((cpu / r.searchIndex.spans) * 1e6).toFixed(0)} µs per span`,
    );
  }
  return lines.join('\n');
};

const main = async () => {
  const backends: Backend[] = args.backend === 'both' ? ['pglite', 'postgres'] : [args.backend as Backend];
  if (backends.some((b) => b !== 'pglite' && b !== 'postgres')) throw new Error('--backend must be pglite, postgres or both');
  const results: IngestResult[] = [];
  for (const backend of backends) {
    const spans = Number(backend === 'postgres' ? args['postgres-spans'] : args['pglite-spans']);
    const result = await runIngest(backend, spans);
    results.push(result);
    console.log(report(result));
  }
  if (backends.includes('postgres')) console.log(`(${await postgresVersion(args['pg-url']!)})`);
  if (args.json) await writeFile(args.json, JSON.stringify(results, null, 2));
};

// Bounded: never leave a run (or a server) hanging.
const guard = setTimeout(() => {
  log('giving up after 60 minutes');
  for (const f of onGiveUp) f();
  setTimeout(() => process.exit(2), 1000);
}, 60 * 60_000);
guard.unref();

await main();
process.exit(0);
