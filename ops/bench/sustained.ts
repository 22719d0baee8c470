/**
 * Sustained ingest: `npm run bench:sustained [-- options]`.
 *
 * Starts `loupe serve` as a child process on a fresh database and keeps 4 senders exporting
 * OTLP/protobuf batches of realistic spans (ops/bench/spanGenerator.ts) as fast as the server
 * accepts them for the whole duration; 503s are retried after their Retry-After. Every 250 ms (the
 * server's own lag sampling interval) it reads the server's /metrics (tracing projection lag,
 * held and refused exports, accepted spans) and its VmRSS, logging every 5 s, then prints the
 * largest lag, memory at minute 1 against the end, and the accepted rate.
 *
 *   --backend postgres|pglite        (default postgres)
 *   --minutes N                      (default 5)
 *   --max-lag SECONDS                SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS for the server (default: the server's own)
 *   --concurrency N                  (default 4)
 *   --batch N                        spans per request (default 512)
 *   --pg-url URL                     server for the scratch database
 *   --json FILE                      also write the result and every sample as JSON
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULTS } from '../config.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { percentile } from './percentile.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { sendBatches } from './senders.ts';
import { startServerProcess } from './serverProcess.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    minutes: { type: 'string', default: '5' },
    'max-lag': { type: 'string', default: String(DEFAULTS.otlpMaxProjectionLagSeconds) },
    concurrency: { type: 'string', default: '4' },
    batch: { type: 'string', default: '512' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    json: { type: 'string' },
  },
});

const PROJECT = 'bench-sustained';
const log = (msg: string) => process.stderr.write(`[bench:sustained] ${msg}\n`);
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

type Sample = {
  readonly t: number;
  readonly lagSeconds: number;
  readonly lagEvents: number;
  readonly drainSeconds: number;
  readonly rssMb: number;
  /** V8's used heap as the server reports it (prom-client's nodejs_heap_size_used_bytes). */
  readonly heapUsedMb: number;
  /** Memory outside V8's heap that V8 knows of: Buffers, ArrayBuffers (nodejs_external_memory_bytes). */
  readonly externalMb: number;
  readonly refused: number;
  readonly held: number;
  readonly accepted: number;
};

const minuteMeans = (samples: readonly Sample[], value: (s: Sample) => number): number[] => {
  const sums: { n: number; total: number }[] = [];
  for (const s of samples) {
    const minute = Math.floor(s.t / 60);
    sums[minute] ??= { n: 0, total: 0 };
    sums[minute].n++;
    sums[minute].total += value(s);
  }
  return [...sums].map((m) => (m ? Math.round(m.total / m.n) : Number.NaN));
};

const durationMs = Number(args.minutes) * 60_000;
const workingDir = await mkdtemp(join(tmpdir(), 'loupe-sustained-'));
const scratch = args.backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_s') : null;
const env: Record<string, string> = { SERVICE_WORKING_DIR: workingDir, SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS: args['max-lag']! };
if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
const server = await startServerProcess({ env, startTimeoutMs: 120_000 });
try {
  const batches = spanBatches(createSpanGenerator(), Number.MAX_SAFE_INTEGER, Number(args.batch));
  const samples: Sample[] = [];
  const started = performance.now();
  const metric = (text: string, name: string, labels = '') => {
    const m = new RegExp(`^${name}${labels.replace(/[{}]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const sample = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const s: Sample = {
      t: (performance.now() - started) / 1000,
      lagSeconds: metric(text, 'loupe_projection_lag_seconds', '{projection="tracing"}'),
      lagEvents: metric(text, 'loupe_projection_lag_events', '{projection="tracing"}'),
      drainSeconds: metric(text, 'loupe_projection_drain_seconds', '{projection="tracing"}'),
      rssMb: rssMb(server.pid),
      heapUsedMb: metric(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
      externalMb: metric(text, 'nodejs_external_memory_bytes') / 2 ** 20,
      refused: metric(text, 'loupe_ingest_refused_requests_total', '{reason="projection_lag"}'),
      held: metric(text, 'loupe_ingest_held_requests_total', '{reason="projection_lag"}'),
      accepted: metric(text, 'loupe_ingest_accepted_spans_total', '{transport="http"}'),
    };
    samples.push(s);
    if (samples.length % 20 !== 1) return;
    log(
      `${s.t.toFixed(0)} s: lag ${s.lagSeconds.toFixed(1)} s / ${s.lagEvents} events (drain ${s.drainSeconds.toFixed(1)} s), RSS ${s.rssMb.toFixed(0)} MB, accepted ${s.accepted}, held (lag) ${s.held}, refused (lag) ${s.refused}`,
    );
  };
  const timer = setInterval(() => void sample().catch((e: unknown) => log(`sample failed: ${e}`)), 250);
  log(`${args.backend}: sending for ${args.minutes} min from ${args.concurrency} senders (bound ${args['max-lag']} s)`);
  const stats = await sendBatches({
    url: `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`,
    batches: Number.MAX_SAFE_INTEGER,
    body: () => encodeExportRequest(batches.next().value!, PROJECT),
    concurrency: Number(args.concurrency),
    shouldStop: () => performance.now() - started > durationMs,
    maxRetryWaitMs: 5000,
  });
  clearInterval(timer);
  await sample();
  const afterFirstMinute = samples.filter((s) => s.t >= 60);
  const at = (t: number) => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best), samples[0]!);
  const last = samples[samples.length - 1]!;
  const result = {
    backend: args.backend,
    minutes: Number(args.minutes),
    boundSeconds: Number(args['max-lag']),
    acceptedSpansPerSecond: Math.round(last.accepted / last.t),
    maxLagSeconds: Math.max(...samples.map((s) => s.lagSeconds)),
    maxDrainSeconds: Math.max(...samples.map((s) => s.drainSeconds)),
    maxLagSecondsAfterMinute1: afterFirstMinute.length ? Math.max(...afterFirstMinute.map((s) => s.lagSeconds)) : null,
    lagSecondsP50: percentile(
      samples.map((s) => s.lagSeconds),
      50,
    ),
    lagSecondsP99: percentile(
      samples.map((s) => s.lagSeconds),
      99,
    ),
    samplesAboveBound: samples.filter((s) => s.lagSeconds > Number(args['max-lag'])).length,
    samples: samples.length,
    rssMbAtMinute1: Math.round(at(60).rssMb),
    rssMbAtEnd: Math.round(last.rssMb),
    rssMbMax: Math.round(Math.max(...samples.map((s) => s.rssMb))),
    // Per-minute means: single samples move by ±25 MB with every GC.
    rssMbMeanPerMinute: minuteMeans(samples, (s) => s.rssMb),
    heapUsedMbMeanPerMinute: minuteMeans(samples, (s) => s.heapUsedMb),
    externalMbMeanPerMinute: minuteMeans(samples, (s) => s.externalMb),
    busyAnswers: stats.busy,
    refusedForLag: last.refused,
    heldForLag: last.held,
    failures: Object.fromEntries(stats.failures),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (args.json) await writeFile(args.json, JSON.stringify({ result, samples }, null, 2));
} finally {
  await server.stop();
  await scratch?.drop();
  await rm(workingDir, { recursive: true, force: true });
}
