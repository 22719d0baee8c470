import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import zlib from 'node:zlib';
import Koa from 'koa';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createIngestBudget, type IngestBudget } from '../../ingest/ingestBudget.ts';
import { createOtlpHttpMiddleware } from '../../ingest/otlpHttp.ts';
import type { SpanSink } from '../../ingest/spanSink.ts';
import { assertSameSpan, exportSpans, otlpTypesForTests as otlp, recordingSink, recordSampleTrace } from './sampleSpans.ts';

const MAX = 64 * 1024;

type Harness = { url: string; server: Server; calls: ReturnType<typeof recordingSink>; budget: IngestBudget; encodings: string[] };

const start = async (options: { sink?: SpanSink; budget?: IngestBudget } = {}): Promise<Harness> => {
  const calls = recordingSink();
  const budget = options.budget ?? createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 2 });
  const app = new Koa();
  app.silent = true;
  const otlp = createOtlpHttpMiddleware({ sink: options.sink ?? calls.sink, maxRequestBytes: MAX, defaultProjectName: 'default', budget });
  const encodings: string[] = [];
  app.use(async (ctx, next) => {
    encodings.push(ctx.get('content-encoding'));
    ctx.state.principal = { user: 'tester' };
    ctx.state.requestId = 'req-1';
    return ctx.method === 'POST' && ctx.path === '/v1/traces' ? otlp(ctx, next) : next();
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return { url, server, calls, budget, encodings };
};

const stop = (h: Harness) => new Promise<void>((resolve) => h.server.close(() => resolve()));

const post = (url: string, body: Uint8Array | string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });

/** A one-span OTLP/JSON request whose fields a test can override. */
const jsonRequest = (span: Record<string, unknown> = {}, resource: Record<string, string> = {}) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })) },
        scopeSpans: [
          {
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                name: 'x',
                kind: 1,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000500000000',
                ...span,
              },
            ],
          },
        ],
      },
    ],
  });

const exporters = {
  proto: (url: string, gzip = false) => new ProtoExporter({ url, ...(gzip ? { compression: 'gzip' as never } : {}) }),
  json: (url: string, gzip = false) => new JsonExporter({ url, ...(gzip ? { compression: 'gzip' as never } : {}) }),
};

const roundTrip = suite('OTLP/HTTP: spans from the real OTel exporters survive exactly');

for (const [format, make] of Object.entries(exporters)) {
  for (const gzip of [false, true]) {
    roundTrip(`${format}${gzip ? ' + gzip' : ''}: one request, one batch, every field`, async () => {
      const h = await start();
      try {
        const spans = await recordSampleTrace({ resource: { 'openinference.project.name': 'shop' } });
        const result = await exportSpans(make(h.url, gzip), spans);
        assert.is(result.code, 0, String(result.error));
        assert.is(h.calls.calls.length, 1);
        assert.equal(h.encodings, [gzip ? 'gzip' : '']);
        const [call] = h.calls.calls;
        assert.equal(call!.context, { transport: 'http', principal: { user: 'tester' }, requestId: 'req-1' });
        assert.is(call!.batches.length, 1);
        const batch = call!.batches[0]!;
        assert.is(batch.projectName, 'shop');
        assert.equal(batch.resources[0]!['service.name'], { str: 'loupe-test' });
        const child = spans.find((s) => s.name === 'llm call')!;
        const root = spans.find((s) => s.name === 'agent run')!;
        assertSameSpan(batch.spans.find((s) => s.name === 'llm call')!, child, 'LLM', 'sess-42');
        assertSameSpan(batch.spans.find((s) => s.name === 'agent run')!, root, 'AGENT', 'sess-42');
        assert.is(batch.spans.find((s) => s.name === 'agent run')!.parentId, null);
      } finally {
        await stop(h);
      }
    });
  }
}

roundTrip('the SDK pipeline (SimpleSpanProcessor → proto exporter) delivers each span', async () => {
  const h = await start();
  try {
    const spans = await recordSampleTrace({ exporter: exporters.proto(h.url) });
    assert.is(h.calls.spans().length, 2);
    for (const span of spans) {
      const record = h.calls.spans().find((r) => r.spanId === span.spanContext().spanId)!;
      assertSameSpan(record, span, span.name === 'llm call' ? 'LLM' : 'AGENT', 'sess-42');
      assert.is(h.calls.calls[0]!.batches[0]!.projectName, 'default');
    }
  } finally {
    await stop(h);
  }
});

roundTrip('the response is an ExportTraceServiceResponse in the request format', async () => {
  const h = await start();
  try {
    const json = await post(h.url, jsonRequest(), { 'content-type': 'application/json' });
    assert.is(json.status, 200);
    assert.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await json.json(), {});
    const spans = await recordSampleTrace();
    const proto = await post(h.url, await protoBody(spans), { 'content-type': 'application/x-protobuf' });
    assert.is(proto.status, 200);
    assert.is(proto.headers.get('content-type'), 'application/x-protobuf');
    assert.is((await proto.arrayBuffer()).byteLength, 0);
  } finally {
    await stop(h);
  }
});

/** The exact bytes the proto exporter would send, captured by a throwaway server. */
const protoBody = async (spans: Awaited<ReturnType<typeof recordSampleTrace>>): Promise<Buffer> => {
  let body: Buffer | undefined;
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    body = Buffer.concat(chunks);
    ctx.type = 'application/x-protobuf';
    ctx.body = Buffer.alloc(0);
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await exportSpans(exporters.proto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`), spans);
  } finally {
    server.close();
  }
  return body!;
};

roundTrip.run();

const json = suite('OTLP/JSON decoding');

json('int64 as number or string, enums as numbers or names, snake_case names, deflate', async () => {
  const h = await start();
  try {
    const body = JSON.stringify({
      resource_spans: [
        {
          scope_spans: [
            {
              spans: [
                {
                  trace_id: '0AF7651916CD43DD8448EB211C80319C',
                  span_id: 'b7ad6b7169203331',
                  parent_span_id: '',
                  name: 'y',
                  kind: 'SPAN_KIND_PRODUCER',
                  start_time_unix_nano: 1700000000000000000,
                  end_time_unix_nano: '1700000000000000001',
                  status: { code: 'STATUS_CODE_ERROR', message: 'no' },
                  attributes: [
                    { key: 'big', value: { intValue: 9007199254740993 } },
                    { key: 'small', value: { int_value: '-7' } },
                    { key: 'nan', value: { doubleValue: 'NaN' } },
                    { key: 'two', value: { doubleValue: 2 } },
                    { key: 'raw', value: { bytesValue: 'AAEC' } },
                    { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } } },
                    { key: 'empty', value: {} },
                    { key: '__proto__', value: { stringValue: 'kept as a key' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    // JSON.stringify already rounded the literal; put the exact digits back into the text.
    const exact = body.replace('9007199254740992', '9007199254740993');
    const res = await post(h.url, zlib.deflateSync(exact), { 'content-type': 'application/json', 'content-encoding': 'deflate' });
    assert.is(res.status, 200, await res.clone().text());
    const [span] = h.calls.spans();
    assert.is(span!.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.is(span!.parentId, null);
    assert.is(span!.kind, 'SPAN_KIND_PRODUCER');
    assert.equal(span!.status, { code: 'ERROR', message: 'no' });
    assert.is(span!.startTimeUnixNano, '1700000000000000000');
    assert.is(span!.endTimeUnixNano, '1700000000000000001');
    assert.equal(span!.attributes.big, { int: '9007199254740993' });
    assert.equal(span!.attributes.small, { int: '-7' });
    assert.equal(span!.attributes.nan, { float: 'NaN' });
    assert.equal(span!.attributes.two, { float: 2 });
    assert.equal(span!.attributes.raw, { bytes: 'AAEC' });
    assert.equal(span!.attributes.map, { kvlist: { k: { bool: false } } });
    assert.is(span!.attributes.empty, null);
    assert.ok(Object.hasOwn(span!.attributes, '__proto__'));
    assert.is(Object.getPrototypeOf(span!.attributes), Object.prototype);
  } finally {
    await stop(h);
  }
});

json.run();

const refusals = suite('OTLP/HTTP refusals: typed errors with a status and a message that says what failed');

const expectError = async (res: Response, status: number, fragment: string) => {
  const text = await res.text();
  assert.is(res.status, status, text);
  assert.ok(text.includes(fragment), `"${text}" should mention "${fragment}"`);
};

refusals('malformed protobuf → 400', async () => {
  const h = await start();
  try {
    await expectError(
      await post(h.url, 'certainly not protobuf', { 'content-type': 'application/x-protobuf' }),
      400,
      'not a valid protobuf',
    );
    assert.is(h.calls.calls.length, 0);
  } finally {
    await stop(h);
  }
});

refusals('malformed JSON → 400; wrong JSON types → 400 with the path', async () => {
  const h = await start();
  try {
    await expectError(await post(h.url, '{"resourceSpans": [', { 'content-type': 'application/json' }), 400, 'not valid JSON');
    await expectError(
      await post(h.url, jsonRequest({ startTimeUnixNano: 'soon' }), { 'content-type': 'application/json' }),
      400,
      '$.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano',
    );
    await expectError(await post(h.url, '[]', { 'content-type': 'application/json' }), 400, 'expected an object');
  } finally {
    await stop(h);
  }
});

refusals('bad gzip → 400; unknown content type or encoding → 415', async () => {
  const h = await start();
  try {
    await expectError(await post(h.url, 'plain', { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 400, 'gzip');
    await expectError(await post(h.url, jsonRequest(), { 'content-type': 'text/plain' }), 415, 'text/plain');
    await expectError(await post(h.url, jsonRequest(), { 'content-type': 'application/json', 'content-encoding': 'br' }), 415, 'br');
  } finally {
    await stop(h);
  }
});

refusals('oversized body → 413 (declared length and chunked upload)', async () => {
  const h = await start();
  try {
    const big = Buffer.alloc(MAX + 1, 0x20);
    await expectError(await post(h.url, big, { 'content-type': 'application/json' }), 413, `${MAX} bytes`);
    const chunked = new ReadableStream({
      start(c) {
        for (let i = 0; i < 4; i++) c.enqueue(new Uint8Array(MAX / 2));
        c.close();
      },
    });
    const res = await fetch(h.url, {
      method: 'POST',
      body: chunked,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413, `${MAX} bytes`);
    assert.equal(h.budget.inFlight(), { requests: 0, bytes: 0 });
  } finally {
    await stop(h);
  }
});

refusals('gzip bomb → 413 without inflating it', async () => {
  const h = await start();
  try {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
    assert.ok(bomb.length < MAX);
    await expectError(
      await post(h.url, bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }),
      413,
      'decompressed',
    );
  } finally {
    await stop(h);
  }
});

refusals('budget exhausted → 503 with Retry-After; the budget is released after each request', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const budget = createIngestBudget({ maxInFlightRequests: 1, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 7 });
  const recorded = recordingSink();
  const h = await start({ budget, sink: async (b, c) => (await gate, recorded.sink(b, c)) });
  try {
    const first = post(h.url, jsonRequest(), { 'content-type': 'application/json' });
    while (budget.inFlight().requests === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await post(h.url, jsonRequest(), { 'content-type': 'application/json' });
    await expectError(second, 503, 'capacity');
    assert.is(second.headers.get('retry-after'), '7');
    release();
    assert.is((await first).status, 200);
    assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
    assert.is(recorded.spans().length, 1);
  } finally {
    await stop(h);
  }
});

refusals('the sink failing fails the request with a retryable 503 + Retry-After (nothing acknowledged) and frees the budget', async () => {
  const h = await start({ sink: async () => Promise.reject(new Error('disk full')) });
  try {
    const res = await post(h.url, jsonRequest(), { 'content-type': 'application/json' });
    await expectError(res, 503, 'could not be stored');
    assert.is(res.headers.get('retry-after'), '5');
    assert.equal(h.budget.inFlight(), { requests: 0, bytes: 0 });
  } finally {
    await stop(h);
  }
});

refusals.run();

type PartialSuccessJson = { partialSuccess: { rejectedSpans: string; errorMessage: string } };

const partial = suite('OTLP/HTTP partial success and project routing');

partial('invalid spans are counted and explained; valid ones are kept', async () => {
  const h = await start();
  try {
    const body = JSON.parse(jsonRequest());
    const spans = body.resourceSpans[0].scopeSpans[0].spans;
    const ok = spans[0];
    spans.push(
      { ...ok, spanId: '0000000000000000' },
      { ...ok, traceId: 'abcd' },
      { ...ok, spanId: 'b7ad6b7169203332', startTimeUnixNano: undefined },
      { ...ok, spanId: 'b7ad6b7169203333', endTimeUnixNano: '0' },
      { ...ok, spanId: 'zz' },
      { ...ok, spanId: 'b7ad6b7169203334', parentSpanId: '0000000000000000' },
    );
    const res = await post(h.url, JSON.stringify(body), { 'content-type': 'application/json' });
    assert.is(res.status, 200);
    const answer = (await res.json()) as PartialSuccessJson;
    assert.is(answer.partialSuccess.rejectedSpans, '5');
    const message: string = answer.partialSuccess.errorMessage;
    for (const why of [
      'span_id is all zero',
      'trace_id must be 16 bytes, got 2',
      'start_time_unix_nano is missing',
      'end_time_unix_nano is missing',
      'span_id is not hex',
    ]) {
      assert.ok(message.includes(why), `${message} should include ${why}`);
    }
    assert.equal(
      h.calls.spans().map((s) => [s.spanId, s.parentId]),
      [
        ['b7ad6b7169203331', null],
        ['b7ad6b7169203334', null],
      ],
    );
  } finally {
    await stop(h);
  }
});

partial('a request where every span is invalid stores nothing and still answers 200', async () => {
  const h = await start();
  try {
    const res = await post(h.url, jsonRequest({ traceId: '' }), { 'content-type': 'application/json' });
    assert.is(res.status, 200);
    assert.is(((await res.json()) as PartialSuccessJson).partialSuccess.rejectedSpans, '1');
    assert.is(h.calls.calls.length, 0);
  } finally {
    await stop(h);
  }
});

partial('protobuf partial success is encoded in protobuf', async () => {
  const h = await start();
  try {
    const span = (spanId: Buffer) => ({
      traceId: Buffer.alloc(16, 0xab),
      spanId,
      name: 'p',
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000000000001',
    });
    const request = otlp.request.fromObject({
      resourceSpans: [{ scopeSpans: [{ spans: [span(Buffer.alloc(8, 1)), span(Buffer.alloc(7, 1))] }] }],
    });
    const res = await post(h.url, otlp.request.encode(request).finish(), { 'content-type': 'application/x-protobuf' });
    assert.is(res.status, 200);
    const answer = otlp.response.toObject(otlp.response.decode(new Uint8Array(await res.arrayBuffer())), { longs: String });
    assert.equal(answer, {
      partialSuccess: { rejectedSpans: '1', errorMessage: '1 span(s) rejected: resource_spans[0] span 1: span_id must be 8 bytes, got 7' },
    });
    assert.equal(
      h.calls.spans().map((s) => s.spanId),
      ['0101010101010101'],
    );
  } finally {
    await stop(h);
  }
});

partial('project: x-project-name header > resource openinference.project.name > default', async () => {
  const h = await start();
  try {
    const twoResources = JSON.parse(jsonRequest({}, { 'openinference.project.name': 'alpha' }));
    const other = structuredClone(twoResources.resourceSpans[0]);
    other.resource.attributes = [];
    other.scopeSpans[0].spans[0].spanId = 'b7ad6b7169203339';
    twoResources.resourceSpans.push(other);

    await post(h.url, JSON.stringify(twoResources), { 'content-type': 'application/json' });
    assert.equal(
      h.calls.calls[0]!.batches.map((b) => [b.projectName, b.spans.length, b.resources.length]),
      [
        ['alpha', 1, 1],
        ['default', 1, 1],
      ],
    );

    await post(h.url, JSON.stringify(twoResources), { 'content-type': 'application/json', 'x-project-name': 'pinned' });
    assert.equal(
      h.calls.calls[1]!.batches.map((b) => [b.projectName, b.spans.length, b.resources.length]),
      [['pinned', 2, 2]],
    );
    assert.equal(
      h.calls.calls[1]!.batches[0]!.spans.map((s) => s.resource),
      [0, 1],
    );

    await post(h.url, jsonRequest({}, { 'openinference.project.name': '  ' }), {
      'content-type': 'application/json',
      'x-project-name': '',
    });
    assert.is(h.calls.calls[2]!.batches[0]!.projectName, 'default');
  } finally {
    await stop(h);
  }
});

partial.run();
