/**
 * GraphQL project page benchmark: `npm run ts -- ops/bench/graphqlProjectPage.ts --database NAME`.
 *
 * Times, one request at a time, the GraphQL queries the UI sends for the project pages, over
 * the database `npm run bench:queries -- --keep` loaded (its log names the database; project
 * `bench-queries`, trace starts spread over the 30 days before the load):
 * - the projects page: every project with its summary (counts, latency p50/p99, tokens, error
 *   rate, last activity) over the UI's default range (last 7 days) and over all time;
 * - the Traces tab's first page (50 traces with root span, previews, span count, tokens) over the
 *   last 7 days: newest first, slowest first, and filtered on the root span (status ERROR).
 *
 * The times are round trips over loopback from this process to the server, one at a time: the
 * server's time plus a fraction of a millisecond of HTTP. Prints p50/p95/max per query.
 *
 *   --database NAME      the loaded scratch database (required; not dropped)
 *   --pg-url URL         its server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --iterations N       timed requests per query (default 100, after 5 untimed)
 *   --analyze yes|no     VACUUM ANALYZE once the projections caught up (default yes: the machine's
 *                        Postgres runs without autovacuum, see ops/bench/queries.ts)
 *   --json FILE          also write the results as JSON
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { waitForQuietMachine } from './cpuUsage.ts';
import { getJson } from './restClient.ts';
import { DEFAULT_PG_URL } from './scratchDatabase.ts';
import { startServerProcess, type ServerProcess } from './serverProcess.ts';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    iterations: { type: 'string', default: '100' },
    analyze: { type: 'string', default: 'yes' },
    json: { type: 'string' },
  },
});

const PROJECT = 'bench-queries';
const WARMUP = 5;
const log = (message: string) => process.stderr.write(`[bench:graphql] ${message}\n`);

// The UI's own queries (ui/src/lib/projects/projectsApi.ts, ui/src/lib/tracing/tracingApi.ts).
const PROJECTS = `
  query ProjectsPage($after: String, $timeRange: TimeRange) {
    projects(first: 50, after: $after) {
      edges { node {
        id name description gradientStartColor gradientEndColor
        summary(timeRange: $timeRange) {
          traceCount spanCount latencyMsP50 latencyMsP99
          tokenCountPrompt tokenCountCompletion tokenCountTotal errorRate lastActivityAt
        }
      } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

const IO_PREVIEW = `{ truncatedValue mimeType }`;
const TRACES = `
  query ProjectTraces($id: ID!, $first: Int!, $after: String, $timeRange: TimeRange, $sort: TraceSort, $filter: SpanFilter) {
    node(id: $id) {
      ... on Project {
        traces(first: $first, after: $after, timeRange: $timeRange, sort: $sort, filter: $filter) {
          edges { node {
            traceId startTime latencyMs numSpans tokenCountTotal
            rootSpan { spanId name spanKind statusCode input ${IO_PREVIEW} output ${IO_PREVIEW} }
          } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

type Reply = { data?: Record<string, unknown>; errors?: unknown[] };

const post = async (server: ServerProcess, query: string, variables: Record<string, unknown>) => {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  const reply = JSON.parse(text) as Reply;
  if (response.status !== 200 || reply.errors) throw new Error(`GraphQL ${response.status}: ${text.slice(0, 400)}`);
  return { reply, bytes: text.length };
};

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0;

type Case = { readonly name: string; readonly query: string; readonly variables: Record<string, unknown> };

const timeCase = async (server: ServerProcess, c: Case, iterations: number) => {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < iterations + WARMUP; i++) {
    const t0 = performance.now();
    const { bytes: size } = await post(server, c.query, c.variables);
    const ms = performance.now() - t0;
    if (i < WARMUP) continue;
    times.push(ms);
    bytes = size;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { name: c.name, requests: times.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted.at(-1)!, bytes };
};

const main = async () => {
  if (!args.database) throw new Error('--database NAME is required (a database `npm run bench:queries -- --keep` loaded)');
  const url = new URL(args['pg-url']!);
  url.pathname = `/${args.database}`;
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-bench-gql-'));
  const server = await startServerProcess({
    env: { SERVICE_WORKING_DIR: workingDir, SERVICE_SQL_DATABASE_URL: url.toString() },
    startTimeoutMs: 300_000,
  });
  try {
    // A database whose load stopped early may still have events to project: time the caught-up read model.
    while ((await getJson<{ projectionLag: string | null }>(`${server.url}/readyz`)).body.projectionLag !== '0')
      await new Promise((r) => setTimeout(r, 1000));
    if (args.analyze === 'yes') {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await client.query('VACUUM ANALYZE');
      await client.end();
    }
    const found = await post(server, `query($name: String!) { getProjectByName(name: $name) { id summary { spanCount traceCount } } }`, {
      name: PROJECT,
    });
    const project = (found.reply.data as { getProjectByName: { id: string; summary: { spanCount: number; traceCount: number } } | null })
      .getProjectByName;
    if (project === null) throw new Error(`no project ${PROJECT} in ${args.database}`);
    log(`${project.summary.spanCount.toLocaleString('en-US')} spans, ${project.summary.traceCount.toLocaleString('en-US')} traces`);
    const week = { start: new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString(), end: null };
    const page = { id: project.id, first: 50, after: null, timeRange: week };
    const cases: Case[] = [
      { name: 'projects + summaries, last 7 days', query: PROJECTS, variables: { after: null, timeRange: week } },
      { name: 'projects + summaries, all time', query: PROJECTS, variables: { after: null, timeRange: { start: null, end: null } } },
      {
        name: 'traces page 1 (50), newest first',
        query: TRACES,
        variables: { ...page, sort: { col: 'startTime', dir: 'desc' }, filter: null },
      },
      {
        name: 'traces page 1 (50), slowest first',
        query: TRACES,
        variables: { ...page, sort: { col: 'latencyMs', dir: 'desc' }, filter: null },
      },
      {
        name: 'traces page 1 (50), root status ERROR',
        query: TRACES,
        variables: { ...page, sort: { col: 'startTime', dir: 'desc' }, filter: { statusCodes: ['ERROR'] } },
      },
    ];
    const busy = await waitForQuietMachine(120_000, 0.25, availableParallelism());
    log(`machine busy ${(busy * 100).toFixed(0)}% before timing`);
    const results = [];
    for (const c of cases) {
      const t = await timeCase(server, c, Number(args.iterations));
      log(`${c.name}: p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms`);
      results.push(t);
    }
    const width = Math.max(...results.map((r) => r.name.length));
    for (const t of results)
      process.stdout.write(
        `  ${t.name.padEnd(width)}  p50 ${t.p50.toFixed(1).padStart(7)} ms  p95 ${t.p95.toFixed(1).padStart(7)} ms  max ${t.max.toFixed(0).padStart(5)} ms  ${(t.bytes / 1024).toFixed(0).padStart(4)} KiB  n=${t.requests}\n`,
      );
    if (args.json) await writeFile(args.json, JSON.stringify({ spans: project.summary.spanCount, busy, results }, null, 2));
  } finally {
    await server.stop();
    await rm(workingDir, { recursive: true, force: true });
  }
};

await main();
