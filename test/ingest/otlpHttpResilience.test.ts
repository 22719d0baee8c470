import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import zlib from 'node:zlib';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createIngestBudget, type IngestBudget } from '../../ingest/ingestBudget.ts';
import { createOtlpHttpMiddleware } from '../../ingest/otlpHttp.ts';
import type { BodyPace } from '../../ingest/readBody.ts';
import type { SpanSink } from '../../ingest/spanSink.ts';
import { recordingSink } from './sampleSpans.ts';

/**
 * The OTLP/HTTP receiver under hostile transport: zip bombs, trickled and endless uploads. What
 * exporters rely on: memory stays within the in-flight budget, a refusal is a clear 408/413/503
 * (never a 500), and a normal export keeps succeeding next to the hostile ones.
 */

const MAX = 64 * 1024;

type Harness = { url: string; port: number; server: Server; calls: ReturnType<typeof recordingSink>; budget: IngestBudget };

const start = async (
  options: { budget?: IngestBudget; pace?: BodyPace; sink?: SpanSink; maxRequestBytes?: number } = {},
): Promise<Harness> => {
  const calls = recordingSink();
  const budget = options.budget ?? createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 2 });
  const app = new Koa();
  app.silent = true;
  const otlp = createOtlpHttpMiddleware({
    sink: options.sink ?? calls.sink,
    maxRequestBytes: options.maxRequestBytes ?? MAX,
    defaultProjectName: 'default',
    budget,
    pace: options.pace ?? { timeoutMs: 10_000, minBytesPerSecond: 1024, graceMs: 400 },
  });
  app.use(async (ctx, next) => (ctx.method === 'POST' && ctx.path === '/v1/traces' ? otlp(ctx, next) : next()));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1/traces`, port, server, calls, budget };
};

const stop = (h: Harness) =>
  new Promise<void>((resolve) => {
    h.server.closeAllConnections();
    h.server.close(() => resolve());
  });

const span = (spanId: string) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId,
  name: 'normal',
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000500000000',
});
const normalBody = (spanId = 'b7ad6b7169203331') => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(spanId)] }] }] });
const postNormal = (h: Harness, spanId?: string) =>
  fetch(h.url, { method: 'POST', body: normalBody(spanId), headers: { 'content-type': 'application/json' } });

/** A raw upload declaring `declared` bytes, of which it sends `initial` now; `trickle` sends one more byte. */
const slowUpload = (h: Harness, declared: number, initial = '') => {
  const socket = net.connect(h.port, '127.0.0.1');
  socket.on('error', () => undefined);
  let answer = '';
  socket.on('data', (d) => (answer += d.toString()));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  socket.write(`POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${initial}`);
  return { socket, closed, trickle: () => socket.write(' ') };
};

const statusOf = (rawAnswer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(rawAnswer)?.[1] ?? 0);

const waitFor = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), what);
};

const slow = suite('OTLP/HTTP: slow uploads hold only what they sent, and are cut off');

slow(
  'given nine uploads declaring the maximum and trickling, when another exporter sends, then it is served and they get 408',
  async () => {
    // A budget of four maximum-size bodies: reserving on the word of Content-Length, nine would take it all.
    const h = await start({ budget: createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 4 * MAX }) });
    try {
      const uploads = Array.from({ length: 9 }, () => slowUpload(h, MAX, '{'));
      const trickler = setInterval(() => uploads.forEach((u) => u.trickle()), 50);
      try {
        await waitFor(() => h.budget.inFlight().bytes >= 9, 'the slow uploads are being read');
        assert.ok(h.budget.inFlight().bytes < 1024, `slow uploads hold only what they sent (${h.budget.inFlight().bytes} bytes)`);
        const res = await postNormal(h);
        assert.is(res.status, 200, await res.text());
        assert.is(h.calls.spans().length, 1);
        const answers = await Promise.all(uploads.map((u) => u.closed));
        for (const answer of answers) {
          assert.is(statusOf(answer), 408, answer);
          assert.ok(answer.includes('slower than the minimum of 1024 bytes/s'), answer);
          assert.match(answer, /connection: close/i);
        }
      } finally {
        clearInterval(trickler);
      }
      assert.equal(h.budget.inFlight(), { requests: 0, bytes: 0 });
    } finally {
      await stop(h);
    }
  },
);

slow('given more slow uploads than request slots, then a normal export still gets a slot', async () => {
  const h = await start({ budget: createIngestBudget({ maxInFlightRequests: 2, maxInFlightBytes: 1024 * 1024 }) });
  try {
    const uploads = Array.from({ length: 5 }, () => slowUpload(h, 500, '{'));
    await waitFor(() => h.budget.inFlight().bytes >= 5, 'the slow uploads are being read');
    assert.is(h.budget.inFlight().requests, 0, 'a request slot is claimed only once the body is in');
    assert.is((await postNormal(h)).status, 200);
    for (const u of uploads) u.socket.destroy();
  } finally {
    await stop(h);
  }
});

slow('given a body arriving steadily but past the deadline, then 408 names the deadline', async () => {
  const h = await start({ pace: { timeoutMs: 300, minBytesPerSecond: 0, graceMs: 300 } });
  try {
    const upload = slowUpload(h, 1000, '{');
    const trickler = setInterval(upload.trickle, 20);
    const answer = await upload.closed;
    clearInterval(trickler);
    assert.is(statusOf(answer), 408, answer);
    assert.ok(answer.includes('did not arrive within'), answer);
    assert.equal(h.budget.inFlight(), { requests: 0, bytes: 0 });
  } finally {
    await stop(h);
  }
});

slow.run();

const bombs = suite('OTLP/HTTP: compressed bodies count against the budget as they inflate');

const gzipPost = (h: Harness, body: Buffer) =>
  fetch(h.url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });

bombs(
  'given concurrent gzip bombs, then each is refused with 413 or 503, memory held stays within the budget, and a normal export succeeds',
  async () => {
    const budget = createIngestBudget({ maxInFlightRequests: 16, maxInFlightBytes: 2 * MAX, retryAfterSeconds: 3 });
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, budget.inFlight().bytes)), 1);
    const h = await start({ budget });
    try {
      const bomb = zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024));
      const answers = await Promise.all(Array.from({ length: 8 }, () => gzipPost(h, bomb)));
      for (const res of answers) {
        const text = await res.text();
        assert.ok(res.status === 413 || res.status === 503, `${res.status} ${text}`);
        if (res.status === 503) assert.is(res.headers.get('retry-after'), '3');
        else assert.ok(text.includes('decompressed request body exceeds'), text);
      }
      assert.ok(peak <= 2 * MAX + MAX, `held at most the budget plus one request (${peak})`);
      assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
      assert.is((await postNormal(h)).status, 200);
    } finally {
      clearInterval(watch);
      await stop(h);
    }
  },
);

bombs('given a small compressed body held in the sink, then its inflated size is what the budget counts', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const budget = createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 50 * 1024, retryAfterSeconds: 4 });
  const recorded = recordingSink();
  const h = await start({ budget, sink: async (b, c) => (await gate, recorded.sink(b, c)) });
  try {
    // Valid OTLP/JSON padded with whitespace to 40 KiB: about 100 bytes once gzipped.
    const padded = Buffer.from(normalBody().padEnd(40 * 1024, ' '));
    const compressed = zlib.gzipSync(padded);
    assert.ok(compressed.length < 1024);
    const first = gzipPost(h, compressed);
    await waitFor(() => budget.inFlight().requests === 1, 'the first request reached the sink');
    assert.is(budget.inFlight().bytes, padded.length);
    const second = await gzipPost(h, zlib.gzipSync(Buffer.from(normalBody('b7ad6b7169203332').padEnd(20 * 1024, ' '))));
    assert.is(second.status, 503, await second.text());
    assert.is(second.headers.get('retry-after'), '4');
    release();
    assert.is((await first).status, 200);
    assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
    assert.is(recorded.spans().length, 1);
  } finally {
    release();
    await stop(h);
  }
});

bombs('deflate: zlib-wrapped and raw deflate are both read, and a truncated stream is a 400', async () => {
  const h = await start();
  try {
    const post = (body: Buffer) =>
      fetch(h.url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' } });
    assert.is((await post(zlib.deflateSync(normalBody()))).status, 200);
    assert.is((await post(zlib.deflateRawSync(normalBody('b7ad6b7169203332')))).status, 200);
    const truncated = await post(zlib.gzipSync(normalBody()).subarray(0, 20));
    assert.is(truncated.status, 400, await truncated.text());
    assert.equal(
      h.calls.spans().map((s) => s.spanId),
      ['b7ad6b7169203331', 'b7ad6b7169203332'],
    );
  } finally {
    await stop(h);
  }
});

bombs.run();

const busy = suite('OTLP/HTTP: a refusal for capacity reaches the exporter');

/**
 * Posts `body` as a busy exporter does: it writes the whole body first and reads the answer only
 * after that (its event loop was elsewhere). Resolves with the answer's status line and
 * Retry-After, or the transport error.
 */
const postThenRead = (h: Harness, body: Buffer) =>
  new Promise<{ status: string; retryAfter: string | null } | { error: string }>((resolve) => {
    const socket = net.connect(h.port, '127.0.0.1');
    socket.pause();
    let answer = '';
    const done = (result: { status: string; retryAfter: string | null } | { error: string }) => {
      socket.destroy();
      resolve(result);
    };
    socket.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const head = answer.indexOf('\r\n\r\n');
      if (head === -1) return;
      const lines = answer.slice(0, head).split('\r\n');
      const retryAfter =
        lines
          .find((l) => /^retry-after:/i.test(l))
          ?.split(':')[1]
          ?.trim() ?? null;
      done({ status: lines[0]!, retryAfter });
    });
    socket.on('close', () => done({ error: `closed without an answer (${JSON.stringify(answer.slice(0, 80))})` }));
    socket.on('connect', async () => {
      socket.write(`POST /v1/traces HTTP/1.1\r\nHost: loupe\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      for (let at = 0; at < body.length && !socket.destroyed; at += 64 * 1024) {
        socket.write(body.subarray(at, at + 64 * 1024));
        await new Promise((r) => setTimeout(r, 1));
      }
      await new Promise((r) => setTimeout(r, 300));
      socket.resume();
    });
  });

busy('given the in-flight budget is spent mid-body, then the exporter still gets 503 + Retry-After, not a reset connection', async () => {
  // 1 MiB of budget; bodies of 6 MiB, under the request limit, arriving 64 KiB at a time: more
  // than the sockets buffer, so a server that stopped reading would make the writes fail.
  // An export held in the sink keeps the budget in use, so no upload is alone in it.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const budget = createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 5 });
  const recorded = recordingSink();
  const h = await start({ budget, sink: async (b, c) => (await gate, recorded.sink(b, c)), maxRequestBytes: 8 * 1024 * 1024 });
  try {
    const held = postNormal(h);
    await waitFor(() => budget.inFlight().requests === 1, 'the first export reached the sink');
    const body = Buffer.from(normalBody('b7ad6b7169203332').padEnd(6 * 1024 * 1024, ' '));
    const answers = await Promise.all(Array.from({ length: 4 }, () => postThenRead(h, body)));
    assert.equal(
      answers,
      Array.from({ length: 4 }, () => ({ status: 'HTTP/1.1 503 Service Unavailable', retryAfter: '5' })),
    );
    release();
    assert.is((await held).status, 200);
    assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
    assert.equal(await postThenRead(h, body), { status: 'HTTP/1.1 200 OK', retryAfter: null });
  } finally {
    release();
    await stop(h);
  }
});

busy.run();
