/**
 * Hostile-load measurements against a real `loupe serve` child process (embedded PGlite in a temp
 * working dir, or a scratch Postgres database with --backend postgres):
 *
 *   npm run ts -- ops/bench/hostileLoad.ts bombs   [--count 16]
 *     N concurrent gzip bombs (a few hundred KiB that inflate to 1 GiB of zeros), then the
 *     server's peak RSS (VmHWM) and whether a normal export still succeeds.
 *   npm run ts -- ops/bench/hostileLoad.ts grpc-bombs [--count 16]
 *     the same bombs as gzip-compressed gRPC messages (raw HTTP/2 frames).
 *   npm run ts -- ops/bench/hostileLoad.ts large   [--spans 50000] [--format protobuf|json]
 *     one OTLP/protobuf request of N small spans while /healthz is polled every 50 ms; prints the
 *     slowest /healthz answer during the request and while the projections catch up.
 *   npm run ts -- ops/bench/hostileLoad.ts large-rest [--spans 50000]
 *     the same spans as one Phoenix `POST /v1/projects/{id}/spans` request; /healthz polled as
 *     above, and a 1-span OTLP export sent one second into the request: how long it takes to be
 *     answered and to be listed.
 *   npm run ts -- ops/bench/hostileLoad.ts graphql [--spans 5000]
 *     N small spans in one project, then GraphQL queries of several shapes (the hostile run's
 *     1,000 aliases of `spans(first: 30)`, 3,000 aliases, a 1,000-span trace page, the largest
 *     ones the cost limit accepts), each while /healthz is polled every 50 ms: the answer's status
 *     and error code, how long it took, and the slowest /healthz answer meanwhile.
 *   npm run ts -- ops/bench/hostileLoad.ts filter  [--spans 20000]
 *     N small spans in one project, then a 2,000-character filter (substring tests over inputs,
 *     outputs and names, `or`-ed: every span is read and tested) listed over REST while /healthz
 *     is polled every 50 ms: the answer's status and time, and the slowest /healthz meanwhile.
 *   npm run ts -- ops/bench/hostileLoad.ts slow    [--count 9]
 *     N connections declaring a 64 MiB body and sending 1 byte/s; then times a normal export.
 *   npm run ts -- ops/bench/hostileLoad.ts hashing [--count 40]
 *     in-process: gzip inflate latency while N argon2 password hashes run, with and without the
 *     server's limit on concurrent hashes.
 *
 * Each measurement first waits (up to --quiet-wait seconds, default 120) for the machine to be
 * quiet, and reports how busy it was meanwhile (machineBusyFraction, of 2 cores).
 * Results are printed as JSON lines (and appended to --json FILE when given); --cpu-prof DIR writes
 * the server's CPU profile there.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { createPasswordHasher, DEFAULT_PASSWORD_COST } from '../../domain/identity/passwords.ts';
import { limitPasswordHashing } from '../limitPasswordHashing.ts';
import { machineBusySeconds, peakRssBytes, waitForQuietMachine } from './cpuUsage.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { createScratchDatabase, DEFAULT_PG_URL, type ScratchDatabase } from './scratchDatabase.ts';
import { postExport } from './senders.ts';
import { startServerProcess, type ServerProcess } from './serverProcess.ts';
import { createSpanGenerator, type GeneratedSpan } from './spanGenerator.ts';
import { SERVER_NODE_FLAGS } from '../serverNodeFlags.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    backend: { type: 'string', default: 'pglite' },
    count: { type: 'string' },
    spans: { type: 'string', default: '50000' },
    format: { type: 'string', default: 'protobuf' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    json: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'quiet-wait': { type: 'string' },
  },
});
const mode = positionals[0];
if (
  mode !== 'bombs' &&
  mode !== 'grpc-bombs' &&
  mode !== 'large' &&
  mode !== 'large-rest' &&
  mode !== 'graphql' &&
  mode !== 'filter' &&
  mode !== 'slow' &&
  mode !== 'hashing'
) {
  console.error(
    'usage: hostileLoad.ts bombs|grpc-bombs|large|large-rest|graphql|filter|slow|hashing [--count N] [--spans N] [--backend pglite|postgres] [--json FILE]',
  );
  process.exit(2);
}

/** Other sessions share this machine: each measurement waits for a quiet moment and says how busy the machine was during it. */
let busyAtStart = 0;
let measuredFrom = 0;
const startMeasuring = async () => {
  await waitForQuietMachine(Number(args['quiet-wait'] ?? 120) * 1000);
  busyAtStart = machineBusySeconds();
  measuredFrom = performance.now();
};
const machineBusy = () => {
  const seconds = (performance.now() - measuredFrom) / 1000;
  return seconds > 0 ? Number(((machineBusySeconds() - busyAtStart) / (seconds * 2)).toFixed(2)) : null;
};

const report = async (result: Record<string, unknown>) => {
  const line = JSON.stringify({ mode, backend: args.backend, ...result, machineBusyFraction: machineBusy() });
  console.log(line);
  if (args.json) await appendFile(args.json, `${line}\n`);
};

/**
 * Starts a fresh peak-RSS (VmHWM) measurement: a new embedded database peaks at over 1 GB while
 * PGlite creates it, long before any load. Linux resets VmHWM to the current RSS on "5".
 */
const resetPeakRss = async (pid: number) => writeFile(`/proc/${pid}/clear_refs`, '5').catch(() => undefined);

const mib = (bytes: number | null) => (bytes === null ? null : Math.round(bytes / (1024 * 1024)));

/** A small normal export: the thing that must keep working. */
const normalBody = () => encodeExportRequest(createSpanGenerator({ textBytes: 200 }).nextTrace(), 'hostile-load');

const withServer = async (run: (server: ServerProcess) => Promise<void>) => {
  const workDir = await mkdtemp(join(tmpdir(), 'loupe-hostile-'));
  let scratch: ScratchDatabase | null = null;
  const env: Record<string, string> = { SERVICE_WORKING_DIR: workDir };
  if (args.backend === 'postgres') {
    scratch = await createScratchDatabase(args['pg-url'], 'loupe_hostile');
    env.SERVICE_SQL_DATABASE_URL = scratch.url;
  }
  const nodeFlags = [...SERVER_NODE_FLAGS, ...(args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [])];
  const server = await startServerProcess({ env, nodeFlags });
  try {
    await run(server);
  } finally {
    await server.stop(10_000);
    await scratch?.drop();
    await rm(workDir, { recursive: true, force: true });
  }
};

/** Polls GET /healthz back to back (50 ms apart) and records how long each answer took. */
const healthProbe = (baseUrl: string) => {
  const latencies: Array<{ at: number; ms: number }> = [];
  let stopped = false;
  const agent = new http.Agent({ keepAlive: false });
  const once = () =>
    new Promise<number>((resolve) => {
      const started = performance.now();
      const req = http.get(`${baseUrl}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      });
      req.on('error', () => resolve(Number.POSITIVE_INFINITY));
    });
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      latencies.push({ at, ms: await once() });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    /** Slowest answer among the probes sent in [from, to). */
    maxBetween: (from: number, to: number) => Math.max(0, ...latencies.filter((l) => l.at >= from && l.at < to).map((l) => l.ms)),
    /** Slowest answer among the probes waiting at any time in [from, to) (one sent just before counts too). */
    maxOverlapping: (from: number, to: number) => Math.max(0, ...latencies.filter((l) => l.at < to && l.at + l.ms > from).map((l) => l.ms)),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
};

const rawPost = (port: number, body: Buffer, headers: Record<string, string>, path = '/v1/traces') =>
  new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now();
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-length': String(body.length), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });

/** 1 GiB of zeros (~1 MiB gzipped), from a 64 MiB gzip member repeated: concatenated members are one valid gzip stream. */
const gzipBomb = () => {
  const member = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: 16 }, () => member));
};

/** One gzip-compressed gRPC Export message sent as raw HTTP/2; resolves with the grpc-status (or an error). */
const grpcPost = (port: number, compressed: Buffer) =>
  new Promise<{ status: string }>((resolve) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', (e) => resolve({ status: `error ${e.message}` }));
    const stream = session.request({
      ':method': 'POST',
      ':path': '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      'content-type': 'application/grpc',
      'grpc-encoding': 'gzip',
      te: 'trailers',
    });
    let status = 'none';
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) status = `grpc ${headers['grpc-status']}`;
    });
    stream.on('trailers', (trailers) => (status = `grpc ${trailers['grpc-status']}`));
    stream.on('data', () => undefined);
    stream.on('error', (e) => (status = `error ${e.message}`));
    stream.on('close', () => {
      session.close();
      resolve({ status });
    });
    const prefix = Buffer.alloc(5);
    prefix[0] = 1; // the message is compressed
    prefix.writeUInt32BE(compressed.length, 1);
    stream.end(Buffer.concat([prefix, compressed]));
  });

const bombs = async (server: ServerProcess) => {
  const count = Number(args.count ?? 16);
  const bomb = gzipBomb();
  await startMeasuring();
  await resetPeakRss(server.pid);
  const before = peakRssBytes(server.pid);
  const started = performance.now();
  const answers: Array<{ status: number | string }> = await Promise.all(
    Array.from({ length: count }, () =>
      mode === 'grpc-bombs'
        ? grpcPost(server.grpcPort, bomb)
        : rawPost(server.otlpHttpPort, bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const normal = await postExport(`http://127.0.0.1:${server.otlpHttpPort}/v1/traces`, normalBody());
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
  await report({
    bombs: count,
    bombCompressedKiB: Math.round(bomb.length / 1024),
    statuses,
    seconds: Number(seconds.toFixed(2)),
    rssBeforeMiB: mib(before),
    peakRssMiB: mib(peakRssBytes(server.pid)),
    normalExportAfter: normal.kind === 'ok' ? 200 : normal.kind === 'http' ? normal.status : normal.error.message,
  });
};

const smallSpans = (total: number): GeneratedSpan[] => {
  const generator = createSpanGenerator({ textBytes: 16 });
  const spans: GeneratedSpan[] = [];
  while (spans.length < total) spans.push(...generator.nextTrace());
  return spans.slice(0, total);
};

/** The same request as OTLP/JSON (hex ids, int64 as strings), as the JSON exporters send it. */
const encodeJsonExportRequest = (spans: readonly GeneratedSpan[], projectName: string): Buffer => {
  const value = (v: GeneratedSpan['attributes'][number][1]) =>
    'str' in v
      ? { stringValue: v.str }
      : 'int' in v
        ? { intValue: String(v.int) }
        : 'float' in v
          ? { doubleValue: v.float }
          : { boolValue: v.bool };
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'openinference.project.name', value: { stringValue: projectName } }] },
          scopeSpans: [
            {
              spans: spans.map((s) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentId ? { parentSpanId: s.parentId } : {}),
                name: s.name,
                kind: s.kind,
                startTimeUnixNano: String(s.startNs),
                endTimeUnixNano: String(s.endNs),
                attributes: s.attributes.map(([key, v]) => ({ key, value: value(v) })),
                status: { code: s.status.code, message: s.status.message },
              })),
            },
          ],
        },
      ],
    }),
  );
};

const large = async (server: ServerProcess) => {
  const total = Number(args.spans);
  const json = args.format === 'json';
  const body = json ? encodeJsonExportRequest(smallSpans(total), 'hostile-large') : encodeExportRequest(smallSpans(total), 'hostile-large');
  await startMeasuring();
  await resetPeakRss(server.pid);
  const probe = healthProbe(server.url);
  await new Promise((r) => setTimeout(r, 500));
  const started = performance.now();
  const answer = await rawPost(server.otlpHttpPort, body, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
  const answered = performance.now();
  // Then until the spans are visible (the projections applying them), or 120 s.
  let visibleMs: number | null = null;
  while (performance.now() - answered < 120_000) {
    const res = await fetch(`${server.url}/v1/projects/hostile-large/spans?limit=1`).catch(() => null);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) {
      visibleMs = performance.now() - answered;
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const caughtUp = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  await probe.stop();
  await report({
    spans: total,
    format: json ? 'json' : 'protobuf',
    bodyMiB: Number((body.length / 1024 / 1024).toFixed(1)),
    status: answer.status,
    requestMs: Math.round(answer.ms),
    slowestHealthzDuringRequestMs: Math.round(probe.maxBetween(started, answered)),
    firstSpanVisibleAfterAnswerMs: visibleMs === null ? null : Math.round(visibleMs),
    slowestHealthzWhileProjectingMs: Math.round(probe.maxBetween(answered, caughtUp)),
    peakRssMiB: mib(peakRssBytes(server.pid)),
  });
};

/** The spans as Phoenix's REST span JSON (`POST /v1/projects/{id}/spans`, ISO times). */
const encodePhoenixSpans = (spans: readonly GeneratedSpan[]): Buffer => {
  const iso = (ns: bigint) => `${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, -1)}${String(ns % 1_000_000n).padStart(6, '0')}Z`;
  const plain = (v: GeneratedSpan['attributes'][number][1]) => ('str' in v ? v.str : 'int' in v ? v.int : 'float' in v ? v.float : v.bool);
  return Buffer.from(
    JSON.stringify({
      data: spans.map((s) => ({
        name: s.name,
        context: { trace_id: s.traceId, span_id: s.spanId },
        span_kind: s.spanKind,
        parent_id: s.parentId,
        start_time: iso(s.startNs),
        end_time: iso(s.endNs),
        status_code: ['UNSET', 'OK', 'ERROR'][s.status.code],
        status_message: s.status.message,
        attributes: Object.fromEntries(s.attributes.map(([key, v]) => [key, plain(v)])),
      })),
    }),
  );
};

/** Until `GET path` lists at least one span (or 120 s): ms after `from`, or null. */
const whenListed = async (url: string, from: number): Promise<number | null> => {
  while (performance.now() - from < 120_000) {
    const res = await fetch(url).catch(() => null);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) return performance.now() - from;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
};

const largeRest = async (server: ServerProcess) => {
  const total = Number(args.spans);
  const body = encodePhoenixSpans(smallSpans(total));
  const port = Number(new URL(server.url).port);
  await startMeasuring();
  await resetPeakRss(server.pid);
  const probe = healthProbe(server.url);
  await new Promise((r) => setTimeout(r, 500));
  const started = performance.now();
  const request = rawPost(port, body, { 'content-type': 'application/json' }, '/v1/projects/hostile-rest/spans');
  // One small OTLP export while the large request is under way: the ingest that must keep flowing.
  await new Promise((r) => setTimeout(r, 1000));
  const otherSent = performance.now();
  const other = await rawPost(server.otlpHttpPort, encodeExportRequest(smallSpans(1), 'hostile-other'), {
    'content-type': 'application/x-protobuf',
  });
  const otherVisibleMs = await whenListed(`${server.url}/v1/projects/hostile-other/spans?limit=1`, otherSent);
  const answer = await request;
  const answered = performance.now();
  const visibleMs = await whenListed(`${server.url}/v1/projects/hostile-rest/spans?limit=1`, answered);
  const caughtUp = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  await probe.stop();
  await report({
    spans: total,
    bodyMiB: Number((body.length / 1024 / 1024).toFixed(1)),
    status: answer.status,
    requestMs: Math.round(answer.ms),
    slowestHealthzDuringRequestMs: Math.round(probe.maxBetween(started, answered)),
    otherExportStatus: other.status,
    otherExportAnsweredMs: Math.round(other.ms),
    otherExportListedAfterSendMs: otherVisibleMs === null ? null : Math.round(otherVisibleMs),
    firstSpanVisibleAfterAnswerMs: visibleMs === null ? null : Math.round(visibleMs),
    slowestHealthzAfterAnswerMs: Math.round(probe.maxBetween(answered, caughtUp)),
    peakRssMiB: mib(peakRssBytes(server.pid)),
  });
};

/** `aliases` copies of one project's `spans(first)` connection with `fields` per span, in one query. */
const aliasedSpans = (projectId: string, aliases: number, first: number, fields: string) =>
  `{ ${Array.from(
    { length: aliases },
    (_, i) =>
      `a${i}: node(id: ${JSON.stringify(projectId)}) { ... on Project { spans(first: ${first}) { edges { node { ${fields} } } } } }`,
  ).join(' ')} }`;

/** The fields of a row of the UI's span table (ui/src/lib/tracing/rowConnections.ts), previews left out. */
const ROW_FIELDS = 'id spanId parentId name spanKind statusCode startTime latencyMs tokenCountTotal context { traceId }';

const graphql = async (server: ServerProcess) => {
  const total = Number(args.spans === '50000' ? 5000 : args.spans);
  const project = 'hostile-graphql';
  const seeded = await rawPost(server.otlpHttpPort, encodeExportRequest(smallSpans(total), project), {
    'content-type': 'application/x-protobuf',
  });
  if (seeded.status !== 200) throw new Error(`seeding answered ${seeded.status}`);
  const want = Math.min(total, 1000);
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.url}/v1/projects/${project}/spans?limit=1000`).catch(() => null);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length >= want) break;
    if (i > 600) throw new Error('the seeded spans never became visible');
    await new Promise((r) => setTimeout(r, 200));
  }
  const post = async (query: string) => {
    const started = performance.now();
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    }).catch(() => null);
    // A server that stopped answering is a result too.
    if (res === null) return { status: 0, code: 'no answer', rows: 0, ms: performance.now() - started, bytes: 0 };
    const text = await res.text();
    const ms = performance.now() - started;
    let code: string | null = null;
    let rows = 0;
    try {
      const body = JSON.parse(text) as { data?: Record<string, any> | null; errors?: { extensions?: { code?: string } }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
      code = body.errors?.[0]?.extensions?.code ?? null;
      for (const value of Object.values(body.data ?? {})) rows += value?.spans?.edges?.length ?? 0;
    } catch {
      code = 'not json';
    }
    return { status: res.status, code, rows, ms, bytes: text.length };
  };
  const listed = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ projects(first: 50) { edges { node { id name } } } }' }),
  });
  const edges = ((await listed.json()) as { data: { projects: { edges: { node: { id: string; name: string } }[] } } }).data.projects.edges;
  const id = edges.find((e) => e.node.name === project)?.node.id;
  if (id === undefined) throw new Error('project not listed');
  const shapes: { label: string; query: string }[] = [
    { label: 'hostile run: 1,000 aliases x spans(first: 30) { name }', query: aliasedSpans(id, 1000, 30, 'name') },
    { label: 'hostile run: 3,000 aliases x spans(first: 1) { name }', query: aliasedSpans(id, 3000, 1, 'name') },
    { label: 'trace page: 1 x spans(first: 1000) { row fields }', query: aliasedSpans(id, 1, 1000, ROW_FIELDS) },
    { label: '2 x spans(first: 1000) { row fields }', query: aliasedSpans(id, 2, 1000, ROW_FIELDS) },
    { label: '4 x spans(first: 1000) { row fields }', query: aliasedSpans(id, 4, 1000, ROW_FIELDS) },
    { label: '40 aliases x spans(first: 1) { name }', query: aliasedSpans(id, 40, 1, 'name') },
    { label: '80 aliases x spans(first: 1) { name }', query: aliasedSpans(id, 80, 1, 'name') },
    { label: '25 aliases x spans(first: 40) { row fields }', query: aliasedSpans(id, 25, 40, ROW_FIELDS) },
    { label: '50 aliases x spans(first: 40) { row fields }', query: aliasedSpans(id, 50, 40, ROW_FIELDS) },
    { label: '1,000 aliases x spans(first: 1) { name }', query: aliasedSpans(id, 1000, 1, 'name') },
  ];
  await startMeasuring();
  for (const shape of shapes) {
    const probe = healthProbe(server.url);
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    const answer = await post(shape.query);
    const answered = performance.now();
    await new Promise((r) => setTimeout(r, 200));
    await probe.stop();
    await report({
      spans: total,
      shape: shape.label,
      status: answer.status,
      code: answer.code,
      rows: answer.rows,
      answerMs: Math.round(answer.ms),
      slowestHealthzMs: Math.round(probe.maxBetween(started, answered + 100)),
    });
  }
};

/** `'w0' in input.value or 'w1' in output.value or 'w2' in name or …`, up to the language's 2,000 characters. */
const longFilter = (): string => {
  const fields = ['input.value', 'output.value', 'name'];
  const terms: string[] = [];
  for (let i = 0; ; i++) {
    const next = [...terms, `'zq${i}x' in ${fields[i % fields.length]}`].join(' or ');
    if (next.length > 2000) return terms.join(' or ');
    terms.push(`'zq${i}x' in ${fields[i % fields.length]}`);
  }
};

const filter = async (server: ServerProcess) => {
  const total = Number(args.spans === '50000' ? 20_000 : args.spans);
  const project = 'hostile-filter';
  for (let sent = 0; sent < total; ) {
    const seeded = await rawPost(server.otlpHttpPort, encodeExportRequest(smallSpans(Math.min(5000, total - sent)), project), {
      'content-type': 'application/x-protobuf',
    });
    // 503: held back until the read models catch up (ingest's backpressure); send it again.
    if (seeded.status === 503) await new Promise((r) => setTimeout(r, 1000));
    else if (seeded.status !== 200) throw new Error(`seeding answered ${seeded.status}`);
    else sent += 5000;
  }
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.url}/v1/projects/${project}/traces?limit=1`).catch(() => null);
    const spans = await fetch(`${server.url}/readyz`)
      .then((r) => r.json() as Promise<{ projections: { name: string; events: number }[] }>)
      .catch(() => null);
    if (res?.ok && spans?.projections.every((p) => p.events === 0)) break;
    if (i > 1500) throw new Error('the seeded spans never became visible');
    await new Promise((r) => setTimeout(r, 200));
  }
  const text = longFilter();
  await startMeasuring();
  const probe = healthProbe(server.url);
  await new Promise((r) => setTimeout(r, 500));
  const runs: { status: number; code: string | null; rows: number; started: number; answered: number }[] = [];
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/projects/${project}/spans?limit=100&filter=${encodeURIComponent(text)}`);
    const body = (await res.json()) as { data?: unknown[]; code?: string };
    runs.push({ status: res.status, code: body.code ?? null, rows: body.data?.length ?? 0, started, answered: performance.now() });
  }
  // After the probe stopped: a probe still waiting when a request was answered is counted too.
  await new Promise((r) => setTimeout(r, 300));
  await probe.stop();
  const measured = runs.map(({ started, answered, ...run }) => ({
    ...run,
    ms: Math.round(answered - started),
    slowestHealthzMs: Math.round(probe.maxOverlapping(started, answered)),
  }));
  await report({ spans: total, filterChars: text.length, runs: measured });
};

const slow = async (server: ServerProcess) => {
  const count = Number(args.count ?? 9);
  await startMeasuring();
  const sockets: net.Socket[] = [];
  const closed: Array<Promise<number>> = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const socket = net.connect(server.otlpHttpPort, '127.0.0.1');
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.write(
      `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`,
    );
    const timer = setInterval(() => socket.write('\n'), 1000);
    closed.push(new Promise((resolve) => socket.on('close', () => (clearInterval(timer), resolve(performance.now() - started)))));
    sockets.push(socket);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const normal = await postExport(`http://127.0.0.1:${server.otlpHttpPort}/v1/traces`, normalBody(), 30_000);
  const result = normal.kind === 'ok' ? 200 : normal.kind === 'http' ? normal.status : normal.error.message;
  const slowClosedMs = await Promise.race([
    Promise.all(closed).then((all) => Math.round(Math.max(...all))),
    new Promise<null>((r) => setTimeout(() => r(null), 150_000)),
  ]);
  for (const s of sockets) s.destroy();
  await report({ slowUploads: count, normalExportWhileSlow: result, slowUploadsClosedAfterMs: slowClosedMs });
};

/**
 * In-process, no server: how long a gzip body of 1 MiB takes to inflate through a zlib stream (as
 * the OTLP receiver does) while N logins' argon2 hashes (production cost) run, with the hasher
 * as the server wires it (at most MAX_CONCURRENT_PASSWORD_HASHES at once) and without the limit.
 */
const hashing = async () => {
  const count = Number(args.count ?? 40);
  const body = zlib.gzipSync(encodeExportRequest(smallSpans(2000), 'hashing').subarray(0, 1024 * 1024));
  const inflate = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const z = zlib.createGunzip();
      z.on('data', () => undefined);
      z.on('end', () => resolve(performance.now() - started));
      z.on('error', reject);
      z.end(body);
    });
  await startMeasuring();
  const alone = await inflate();
  for (const limited of [false, true]) {
    const plain = createPasswordHasher(DEFAULT_PASSWORD_COST);
    const hasher = limited ? limitPasswordHashing(plain) : plain;
    const started = performance.now();
    const logins = Promise.all(Array.from({ length: count }, (_, i) => hasher.hash(`password-${i}`)));
    await new Promise((r) => setTimeout(r, 20));
    const duringLogins = await inflate();
    await logins;
    await report({
      logins: count,
      limitedHashing: limited,
      gunzipAloneMs: Math.round(alone),
      gunzipDuringLoginsMs: Math.round(duringLogins),
      allLoginsMs: Math.round(performance.now() - started),
    });
  }
};

if (mode === 'hashing') await hashing();
else
  await withServer(
    mode === 'bombs' || mode === 'grpc-bombs'
      ? bombs
      : mode === 'large'
        ? large
        : mode === 'large-rest'
          ? largeRest
          : mode === 'graphql'
            ? graphql
            : mode === 'filter'
              ? filter
              : slow,
  );
