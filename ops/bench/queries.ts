/**
 * Query benchmark: `npm run bench:queries [-- options]`.
 *
 * Loads N realistic spans (default 1,000,000) into a fresh database through the server's own
 * OTLP ingest (so the read-model tables are exactly what the projector builds), waits until REST
 * lists them, then times the read endpoints one request at a time and prints p50/p95:
 * trace list pages, span filters, session list, and the metrics page's GraphQL series (every
 * chart of the page in one request) over 30 days, 7 days, 24 hours and one hour.
 *
 *   --backend postgres|pglite        (default postgres)
 *   --spans N                        (default 1000000)
 *   --seed ingest|copies             how the spans get there (default ingest): all through OTLP, or
 *                                    (Postgres) a template through OTLP and the rest copied from
 *                                    its rows in SQL (copyTracingRows.ts; prints both rows' shapes)
 *   --template N                     spans sent through OTLP with --seed copies (default 50000)
 *   --iterations N                   timed requests per query (default 100)
 *   --analyze yes|no                 VACUUM ANALYZE the read model before timing (default yes; see below)
 *   --case-budget SECONDS            stop timing a query after this long, with fewer requests (default 60)
 *   --concurrency N                  load senders (default 4)
 *   --pg-url URL                     server for the scratch database
 *                                    (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --database NAME                  reuse this already loaded database (Postgres; not dropped)
 *   --working-dir DIR                reuse this already loaded working dir (PGlite; not removed)
 *   --keep                           keep the scratch database / working dir (to rerun with the above)
 *   --json FILE                      also write the results as JSON
 *   --only REGEX                     time only the queries whose name matches (e.g. --only metrics)
 *
 * Statistics: this machine's Postgres runs with autovacuum = off, and PGlite (single-user mode)
 * never autovacuums, so a freshly loaded read model has no planner statistics and every filter
 * plan is a guess. `--analyze yes` runs VACUUM ANALYZE first, as autovacuum would have on a
 * default Postgres install (on PGlite the server is stopped for it and started again).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { waitForQuietMachine } from './cpuUsage.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { getJson, waitUntilListed, waitUntilSearchable } from './restClient.ts';
import { createScratchDatabase, DEFAULT_PG_URL, postgresVersion, type ScratchDatabase } from './scratchDatabase.ts';
import { sendBatches } from './senders.ts';
import { startServerProcess, type ServerProcess } from './serverProcess.ts';
import { createSpanGenerator, type GeneratedSpan } from './spanGenerator.ts';
import { copyTracingRows, tracingShape } from './copyTracingRows.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    spans: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: 'ingest' },
    template: { type: 'string', default: '50000' },
    iterations: { type: 'string', default: '100' },
    'case-budget': { type: 'string', default: '60' },
    analyze: { type: 'string', default: 'yes' },
    concurrency: { type: 'string', default: '4' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    database: { type: 'string' },
    'working-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
    only: { type: 'string' },
  },
});

const PROJECT = 'bench-queries';
const BATCH = 512;
const log = (message: string) => process.stderr.write(`[bench:queries] ${message}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Page = { data: unknown[]; next_cursor: string | null };

/** Whether a reused database already holds the benchmark project. */
const projectExists = async (server: ServerProcess) => (await getJson(`${server.url}/v1/projects/${PROJECT}`)).status === 200;

/** The span with `word` added to its output (a word no generated span holds). */
const withWord = (span: GeneratedSpan, word: string): GeneratedSpan => ({
  ...span,
  attributes: span.attributes.map(([k, v]) =>
    k === 'output.value' ? ([k, { str: `${word} ${'str' in v ? v.str : ''}` }] as const) : ([k, v] as const),
  ),
});

const load = async (server: ServerProcess, spans: number, concurrency: number) => {
  const generator = createSpanGenerator({ seed: 11, spreadMs: 30 * 24 * 3600 * 1000 });
  const batches: GeneratedSpan[][] = [];
  let pending: GeneratedSpan[] = [];
  let produced = 0;
  const batchCount = Math.ceil(spans / BATCH);
  const url = `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`;
  const loadNeedle = `loaded${Date.now().toString(36)}`;
  const started = performance.now();
  let lastReport = started;
  let acked = 0;
  const stats = await sendBatches({
    url,
    batches: batchCount,
    concurrency,
    body: (i) => {
      while (pending.length < BATCH) pending.push(...generator.nextTrace());
      const size = Math.min(BATCH, spans - produced);
      const batch = pending.slice(0, size);
      pending = pending.slice(size);
      produced += size;
      // The last request carries a word of its own: once search finds it, search has caught up.
      if (i === batchCount - 1 && batch[0]) batch[0] = withWord(batch[0], loadNeedle);
      // Only the last few batches are kept (to wait until they are listed).
      batches[i] = batch;
      if (i >= concurrency * 2) delete batches[i - concurrency * 2];
      return encodeExportRequest(batch, PROJECT);
    },
    onAck: () => {
      acked++;
      const now = performance.now();
      if (now - lastReport > 30_000) {
        lastReport = now;
        log(`  ${fmt(acked * BATCH)} spans acknowledged (${fmt((acked * BATCH) / ((now - started) / 1000))} spans/s)`);
      }
    },
  });
  if (stats.acked.length !== batchCount)
    throw new Error(`load: ${stats.acked.length} of ${batchCount} batches acknowledged: ${JSON.stringify([...stats.failures])}`);
  const ackSeconds = (performance.now() - started) / 1000;
  log(
    `load: ${fmt(spans)} spans acknowledged in ${ackSeconds.toFixed(0)} s (${fmt(spans / ackSeconds)} spans/s); waiting until REST lists them`,
  );
  const last = stats.acked.slice(-concurrency).flatMap((i) => batches[i] ?? []);
  await waitUntilListed(server.url, PROJECT, last, 60 * 60_000, 1000);
  const visibleSeconds = (performance.now() - started) / 1000;
  log(`load: visible after ${visibleSeconds.toFixed(0)} s (${fmt(spans / visibleSeconds)} spans/s); waiting until search has caught up`);
  // Search trails the spans list (projections/tracing/spanTextSearch.ts): statistics and the
  // search cases want every span's words.
  await waitUntilSearchable(server.url, PROJECT, [loadNeedle], 60 * 60_000, 1000);
  const searchableSeconds = (performance.now() - started) / 1000;
  log(`load: search caught up after ${searchableSeconds.toFixed(0)} s`);
  return { ackSeconds, visibleSeconds, searchableSeconds };
};

/**
 * What the filter cases look for and the generator does not make: a judge's label on the 1,000
 * sampled spans (half "incorrect"), and 20 spans carrying a word nothing else has (sent as new
 * spans, so the full-text case looks for one needle among 1M). Idempotent enough to rerun on a
 * kept database: annotations upsert, and the needles are new words each run.
 */
const annotateAndMark = async (server: ServerProcess, sample: readonly { context: { span_id: string } }[]) => {
  const data = sample.map((s, i) => ({
    span_id: s.context.span_id,
    name: 'correctness',
    annotator_kind: 'LLM',
    result: { label: i % 2 === 0 ? 'incorrect' : 'correct', score: i % 2 },
  }));
  const annotated = await fetch(`${server.url}/v1/span_annotations?sync=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data }),
  });
  if (annotated.status !== 200) throw new Error(`annotations: ${annotated.status} ${await annotated.text()}`);
  const words = Array.from({ length: 20 }, (_, i) => `needle${Date.now().toString(36)}x${i}`);
  const generator = createSpanGenerator({ seed: 99, spreadMs: 30 * 24 * 3600 * 1000 });
  const spans: GeneratedSpan[] = [];
  while (spans.length < words.length) spans.push(...generator.nextTrace());
  const marked = spans.slice(0, words.length).map((span, i) => withWord(span, words[i]!));
  const sent = await fetch(`http://127.0.0.1:${server.otlpHttpPort}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: encodeExportRequest(marked, PROJECT),
  });
  if (sent.status !== 200) throw new Error(`needles: ${sent.status} ${await sent.text()}`);
  const acknowledged = performance.now();
  await waitUntilListed(server.url, PROJECT, marked, 120_000, 100);
  // Search trails the spans list (projections/tracing/spanTextSearch.ts): how far, on this database.
  await waitUntilSearchable(server.url, PROJECT, words, 120_000, 50);
  searchableAfterMs = performance.now() - acknowledged;
  log(`the 20 needles were found by search ${(searchableAfterMs / 1000).toFixed(2)} s after their acknowledgement`);
  return words;
};

/** With --seed copies: what was sent, what was copied, and the two rows' shapes (printed with the results). */
let seeded: { template: number; copied: number; seconds: number } | null = null;
let shapes: string[] = [];

/** How long after their acknowledgement search found the needles (set by annotateAndMark). */
let searchableAfterMs: number | null = null;

type Case = {
  readonly name: string;
  readonly group: 'traces' | 'spans' | 'sessions' | 'filters' | 'metrics';
  readonly path: () => string;
  /** A GraphQL request (POSTed to `path`) instead of a GET. */
  readonly graphql?: () => { readonly query: string; readonly variables: Record<string, unknown> };
};

type Timing = {
  name: string;
  group: string;
  requests: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
  rows: number;
  bytes: number;
};

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0;

const WARMUP = 5;

const timeCase = async (base: string, c: Case, iterations: number, budgetMs: number): Promise<Timing> => {
  const times: number[] = [];
  let rows = 0;
  let bytes = 0;
  const deadline = performance.now() + budgetMs;
  for (let i = 0; i < iterations + WARMUP; i++) {
    // A slow query gets fewer requests (at least 10 timed) rather than stalling the run.
    if (i >= WARMUP + 10 && performance.now() > deadline) break;
    const url = `${base}${c.path()}`;
    const body = c.graphql?.();
    const t0 = performance.now();
    const response = await fetch(
      url,
      body === undefined ? undefined : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    const text = await response.text();
    const ms = performance.now() - t0;
    if (response.status !== 200 || text.includes('"errors"'))
      throw new Error(`${c.name}: ${url} → ${response.status} ${text.slice(0, 300)}`);
    if (i < WARMUP) continue;
    times.push(ms);
    const parsed = JSON.parse(text) as Page & { data: { node?: { metrics?: { points: unknown[] } } } };
    rows += parsed.data.node?.metrics?.points.length ?? (parsed.data as unknown[]).length;
    bytes += text.length;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    name: c.name,
    group: c.group,
    requests: times.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted.at(-1)!,
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    rows: rows / times.length,
    bytes: bytes / times.length,
  };
};

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Cursors of the first `pages` pages of a list, to time deeper pages too. */
const cursors = async (base: string, path: string, pages: number): Promise<string[]> => {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const { body }: { body: Page } = await getJson<Page>(`${base}${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
    out.push(cursor);
  }
  return out;
};

const cases = async (server: ServerProcess): Promise<Case[]> => {
  const p = `/v1/projects/${PROJECT}`;
  const traceCursors = await cursors(server.url, `${p}/traces?limit=50`, 40);
  const spanCursors = await cursors(server.url, `${p}/spans?limit=100`, 40);
  const sample = (
    await getJson<{ data: { context: { trace_id: string; span_id: string }; attributes: Record<string, unknown> }[] }>(
      `${server.url}${p}/spans?limit=1000`,
    )
  ).body.data;
  const traceIds = sample.map((s) => s.context.trace_id);
  const userIds = sample.map((s) => s.attributes['user.id']).filter((u): u is string => typeof u === 'string');
  const sessionIds = sample.map((s) => s.attributes['session.id']).filter((u): u is string => typeof u === 'string');
  const rareWords = await annotateAndMark(server, sample);
  const hourAgo = () => new Date(Date.now() - Math.floor(Math.random() * 29 * 24) * 3600_000);
  const q = encodeURIComponent;
  return [
    { group: 'traces', name: 'traces?limit=50 (first page, newest first)', path: () => `${p}/traces?limit=50` },
    { group: 'traces', name: 'traces?limit=50&cursor=<page 2..40>', path: () => `${p}/traces?limit=50&cursor=${q(pick(traceCursors))}` },
    { group: 'traces', name: 'traces?limit=50&sort=latency_ms', path: () => `${p}/traces?limit=50&sort=latency_ms` },
    {
      group: 'traces',
      name: 'traces?limit=50&start_time&end_time (1 h window)',
      path: () => {
        const from = hourAgo();
        return `${p}/traces?limit=50&start_time=${q(from.toISOString())}&end_time=${q(new Date(from.getTime() + 3600_000).toISOString())}`;
      },
    },
    {
      group: 'traces',
      name: 'traces?session_identifier=<id>',
      path: () => `${p}/traces?limit=50&session_identifier=${q(pick(sessionIds))}`,
    },
    { group: 'spans', name: 'spans?limit=100 (no filter)', path: () => `${p}/spans?limit=100` },
    { group: 'spans', name: 'spans?limit=100&cursor=<page 2..40>', path: () => `${p}/spans?limit=100&cursor=${q(pick(spanCursors))}` },
    { group: 'spans', name: 'spans?span_kind=LLM', path: () => `${p}/spans?limit=100&span_kind=LLM` },
    {
      group: 'spans',
      name: 'spans?span_kind=RETRIEVER&span_kind=TOOL',
      path: () => `${p}/spans?limit=100&span_kind=RETRIEVER&span_kind=TOOL`,
    },
    { group: 'spans', name: 'spans?status_code=ERROR', path: () => `${p}/spans?limit=100&status_code=ERROR` },
    { group: 'spans', name: 'spans?span_kind=LLM&status_code=ERROR', path: () => `${p}/spans?limit=100&span_kind=LLM&status_code=ERROR` },
    { group: 'spans', name: 'spans?parent_id=null (roots)', path: () => `${p}/spans?limit=100&parent_id=null` },
    {
      group: 'spans',
      name: 'spans?attribute=user.id:<one of 997>',
      path: () => `${p}/spans?limit=100&attribute=${q(`user.id:${pick(userIds)}`)}`,
    },
    {
      group: 'spans',
      name: 'spans?attribute=llm.model_name:gpt-4o-mini (~10 %)',
      path: () => `${p}/spans?limit=100&attribute=${q('llm.model_name:gpt-4o-mini')}`,
    },
    {
      group: 'spans',
      name: 'spans?attribute=metadata.tier:gold&span_kind=LLM',
      path: () => `${p}/spans?limit=100&span_kind=LLM&attribute=${q('metadata.tier:gold')}`,
    },
    { group: 'spans', name: 'spans?trace_id=<id>', path: () => `${p}/spans?limit=100&trace_id=${pick(traceIds)}` },
    {
      group: 'spans',
      name: 'spans?start_time&end_time (1 h window)',
      path: () => {
        const from = hourAgo();
        return `${p}/spans?limit=100&start_time=${q(from.toISOString())}&end_time=${q(new Date(from.getTime() + 3600_000).toISOString())}`;
      },
    },
    // The filter language and full-text search (issue 28), a page of 50 as the UI asks for.
    {
      group: 'filters',
      name: "filter=span_kind == 'LLM' and latency_ms > 2000",
      path: () => `${p}/spans?limit=50&filter=${q("span_kind == 'LLM' and latency_ms > 2000")}`,
    },
    {
      group: 'filters',
      name: "filter=span_kind == 'LLM' and latency_ms >= 500 and latency_ms < 600",
      path: () => `${p}/spans?limit=50&filter=${q("span_kind == 'LLM' and latency_ms >= 500 and latency_ms < 600")}`,
    },
    {
      group: 'filters',
      name: "filter=llm.model_name == 'gpt-4o-mini'",
      path: () => `${p}/spans?limit=50&filter=${q("llm.model_name == 'gpt-4o-mini'")}`,
    },
    {
      group: 'filters',
      name: "filter=annotations['correctness'].label == 'incorrect' (500 of 1M)",
      path: () => `${p}/spans?limit=50&filter=${q("annotations['correctness'].label == 'incorrect'")}`,
    },
    { group: 'filters', name: 'search=refund (a common word)', path: () => `${p}/spans?limit=50&search=refund` },
    { group: 'filters', name: 'search=<word of one span>', path: () => `${p}/spans?limit=50&search=${q(pick(rareWords))}` },
    { group: 'filters', name: 'traces?filter=span_count > 8', path: () => `${p}/traces?limit=50&filter=${q('span_count > 8')}` },
    { group: 'sessions', name: 'sessions?limit=50 (first page)', path: () => `${p}/sessions?limit=50` },
    { group: 'sessions', name: 'sessions?limit=50&order=desc', path: () => `${p}/sessions?limit=50&order=desc` },
    ...(await metricCases(server)),
  ];
};

const METRICS = `query ($id: ID!, $range: TimeRange!) { node(id: $id) { ... on Project { metrics(timeRange: $range) {
  bucket points { time traceCount errorCount errorRate latencyMsP50 latencyMsP95 latencyMsP99 tokenCountPrompt tokenCountCompletion cost }
  scores { name points { time mean count } } } } } }`;

/** The metrics page's one request (every chart), over ranges ending now; the data spreads over the last 30 days. */
const metricCases = async (server: ServerProcess): Promise<Case[]> => {
  const found = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($n: String!) { getProjectByName(name: $n) { id } }', variables: { n: PROJECT } }),
  });
  const id = ((await found.json()) as { data: { getProjectByName: { id: string } } }).data.getProjectByName.id;
  const over = (label: string, ms: number, shift = false): Case => ({
    group: 'metrics',
    name: `metrics: ${label}`,
    path: () => '/graphql',
    graphql: () => {
      // A shifted window lands anywhere in the month (a zoomed-in stretch), not only at its end.
      const end = Date.now() - (shift ? Math.floor(Math.random() * (29 * 86_400_000 - ms)) : 0);
      return { query: METRICS, variables: { id, range: { start: new Date(end - ms).toISOString(), end: new Date(end).toISOString() } } };
    },
  });
  return [
    over('last 30 days (day buckets, every trace)', 30 * 86_400_000),
    over('last 7 days (hour buckets)', 7 * 86_400_000),
    over('24 hours anywhere in the month (hour buckets)', 86_400_000, true),
    over('1 hour anywhere in the month (minute buckets)', 3_600_000, true),
  ];
};

const main = async () => {
  const backend = args.backend;
  if (backend !== 'postgres' && backend !== 'pglite') throw new Error('--backend must be postgres or pglite');
  const spans = Number(args.spans);
  const iterations = Number(args.iterations);
  const reuse = backend === 'postgres' ? args.database : args['working-dir'];
  const workingDir = args['working-dir'] ?? (await mkdtemp(join(tmpdir(), 'loupe-bench-q-')));
  let scratch: ScratchDatabase | null = null;
  let dbUrl: string | null = null;
  if (backend === 'postgres') {
    if (args.database) {
      const u = new URL(args['pg-url']!);
      u.pathname = `/${args.database}`;
      dbUrl = u.toString();
    } else {
      scratch = await createScratchDatabase(args['pg-url']!, 'loupe_bench_q');
      dbUrl = scratch.url;
      log(`scratch database ${scratch.name}`);
    }
  }
  const env: Record<string, string> = { SERVICE_WORKING_DIR: workingDir };
  if (dbUrl) env.SERVICE_SQL_DATABASE_URL = dbUrl;
  let server: ServerProcess | null = null;
  const guard = setTimeout(() => {
    log('giving up after 90 minutes');
    void server?.kill().finally(() => process.exit(2));
  }, 90 * 60_000);
  guard.unref();
  try {
    server = await startServerProcess({ env, startTimeoutMs: 300_000 });
    let loadResult: { ackSeconds: number; visibleSeconds: number; searchableSeconds: number } | null = null;
    if (reuse && (await projectExists(server))) {
      log(`reusing the loaded ${backend === 'postgres' ? `database ${args.database}` : `working dir ${workingDir}`}`);
      while ((await getJson<{ projectionLag: string | null }>(`${server.url}/readyz`)).body.projectionLag !== '0') await pause(1000);
    } else {
      const template = args.seed === 'copies' ? Math.min(spans, Number(args.template)) : spans;
      log(`loading ${fmt(template)} spans through OTLP/HTTP from ${args.concurrency} senders`);
      loadResult = await load(server, template, Number(args.concurrency));
      if (template < spans) {
        if (!dbUrl) throw new Error('--seed copies needs --backend postgres');
        const client = new pg.Client({ connectionString: dbUrl });
        await client.connect();
        try {
          const started = performance.now();
          const copies = Math.ceil(spans / template) - 1;
          const { spans: copied, templateMaxId: S } = await copyTracingRows(client, copies, log);
          seeded = { template, copied, seconds: (performance.now() - started) / 1000 };
          const projected = await tracingShape(client, 0, S);
          const copy = await tracingShape(client, S, 2 * S);
          shapes = Object.keys(projected).map((k) => `    ${k.padEnd(28)} projected ${String(projected[k]).padEnd(24)} copied ${copy[k]}`);
        } finally {
          await client.end();
        }
      }
    }
    if (args.analyze === 'yes') {
      const started = performance.now();
      if (dbUrl) {
        const client = new pg.Client({ connectionString: dbUrl });
        await client.connect();
        await client.query('VACUUM ANALYZE');
        await client.end();
      } else {
        await server.stop();
        server = null;
        const db = await PGlite.create(join(workingDir, 'pgdata'));
        await db.exec('VACUUM ANALYZE');
        await db.close();
        server = await startServerProcess({ env, startTimeoutMs: 300_000 });
      }
      log(`VACUUM ANALYZE took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    const only = args.only === undefined ? null : new RegExp(args.only);
    const list = (await cases(server)).filter((c) => only === null || only.test(c.name));
    const quiet = await waitForQuietMachine(120_000, 0.25, availableParallelism());
    if (quiet >= 0.25) log(`warning: the machine is ${(quiet * 100).toFixed(0)} % busy with other work; latencies will be high`);
    const timings: Timing[] = [];
    for (const c of list) {
      const t = await timeCase(server.url, c, iterations, Number(args['case-budget']) * 1000);
      timings.push(t);
      log(`${c.name}: p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms`);
    }
    console.log(
      `== queries on ${backend}, ${fmt(spans)} spans in one project, ${args.analyze === 'yes' ? 'after VACUUM ANALYZE' : 'WITHOUT planner statistics (no ANALYZE)'}; up to ${iterations} sequential requests each (after ${WARMUP} warm-up; fewer when one takes over ${args['case-budget']} s), client-side wall time`,
    );
    if (loadResult) {
      console.log(
        `  load: acknowledged ${fmt(spans / loadResult.ackSeconds)} spans/s, visible ${fmt(spans / loadResult.visibleSeconds)} spans/s (${loadResult.visibleSeconds.toFixed(0)} s), searchable after ${loadResult.searchableSeconds.toFixed(0)} s`,
      );
    }
    if (seeded !== null) {
      console.log(
        `  seeded: ${fmt(seeded.template)} spans through OTLP, ${fmt(seeded.copied)} copied from their rows in SQL in ${seeded.seconds.toFixed(0)} s (copyTracingRows.ts); per spans column, mean stored bytes and nulls, projected rows vs their first copy:`,
      );
      for (const line of shapes) console.log(line);
    }
    if (searchableAfterMs !== null)
      console.log(`  full-text search found 20 new spans ${(searchableAfterMs / 1000).toFixed(2)} s after their acknowledgement`);
    const width = Math.max(...timings.map((t) => t.name.length));
    for (const t of timings) {
      console.log(
        `  ${t.name.padEnd(width)}  p50 ${t.p50.toFixed(1).padStart(7)} ms  p95 ${t.p95.toFixed(1).padStart(7)} ms  max ${t.max.toFixed(0).padStart(5)} ms  rows ${t.rows.toFixed(0).padStart(4)}  ${(t.bytes / 1024).toFixed(0).padStart(4)} KiB  n=${t.requests}`,
      );
    }
    if (dbUrl) console.log(`(${await postgresVersion(dbUrl)})`);
    if (args.json)
      await writeFile(args.json, JSON.stringify({ backend, spans, iterations, analyze: args.analyze, load: loadResult, timings }, null, 2));
    await server.stop();
    server = null;
  } catch (error) {
    if (server) log(`server output:\n${server.output().slice(-4000)}`);
    throw error;
  } finally {
    if (server) await server.kill();
    // The data lives in the scratch database (Postgres) or in the working dir (PGlite).
    const keepData = args.keep || reuse !== undefined;
    if (keepData) log(`kept ${dbUrl ?? workingDir}`);
    else await scratch?.drop();
    const keepDir = args['working-dir'] !== undefined || (keepData && backend === 'pglite');
    if (!keepDir) await rm(workingDir, { recursive: true, force: true });
  }
};

await main();
process.exit(0);
