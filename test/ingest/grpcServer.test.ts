import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import protobuf from 'protobufjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawTraceService, startOtlpGrpcServer, type GrpcAuthResult, type OtlpGrpcServer } from '../../ingest/grpcServer.ts';
import { createIngestBudget, type IngestBudget } from '../../ingest/ingestBudget.ts';
import type { SpanSink } from '../../ingest/spanSink.ts';
import { assertSameSpan, exportSpans, otlpTypesForTests as otlp, recordingSink, recordSampleTrace } from './sampleSpans.ts';

const MAX = 64 * 1024;

type Harness = { server: OtlpGrpcServer; url: string; calls: ReturnType<typeof recordingSink>; budget: IngestBudget; errors: unknown[] };

const start = async (
  options: {
    sink?: SpanSink;
    budget?: IngestBudget;
    authenticate?: (r: { authorization: string | null }) => Promise<GrpcAuthResult<unknown>>;
  } = {},
): Promise<Harness> => {
  const calls = recordingSink();
  const errors: unknown[] = [];
  const budget = options.budget ?? createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 3 });
  const server = await startOtlpGrpcServer({
    host: '127.0.0.1',
    port: 0,
    sink: options.sink ?? calls.sink,
    budget,
    maxRequestBytes: MAX,
    defaultProjectName: 'default',
    reportError: (e) => errors.push(e),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
  });
  return { server, url: `http://127.0.0.1:${server.port}`, calls, budget, errors };
};

/** A bare client for the Export method, to send bytes the official exporter never would. */
const RawClient = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');

const rawExport = (h: Harness, body: Uint8Array, metadata = new grpc.Metadata(), clientOptions: grpc.ClientOptions = {}) =>
  new Promise<{ error: grpc.ServiceError | null; response: Buffer | undefined }>((resolve) => {
    const client = new RawClient(`127.0.0.1:${h.server.port}`, grpc.credentials.createInsecure(), clientOptions);
    (client as unknown as { Export: (b: Buffer, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, r?: Buffer) => void) => void }).Export(
      Buffer.from(body),
      metadata,
      (error, response) => {
        client.close();
        resolve({ error, response });
      },
    );
  });

const encodeRequest = (spans: { spanId: Buffer; traceId?: Buffer }[], resource: Record<string, string> = {}) =>
  otlp.request
    .encode(
      otlp.request.fromObject({
        resourceSpans: [
          {
            resource: { attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })) },
            scopeSpans: [
              {
                spans: spans.map((s) => ({
                  traceId: s.traceId ?? Buffer.alloc(16, 0xcd),
                  spanId: s.spanId,
                  name: 'raw',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000000000001',
                })),
              },
            ],
          },
        ],
      }),
    )
    .finish();

const test = suite('OTLP/gRPC receiver');

for (const gzip of [false, true]) {
  test(`the official gRPC exporter${gzip ? ' with gzip' : ''}: every field survives`, async () => {
    const h = await start();
    try {
      const spans = await recordSampleTrace({ resource: { 'openinference.project.name': 'grpc-project' }, sessionId: '  padded  ' });
      const exporter = new OTLPTraceExporter({ url: h.url, ...(gzip ? { compression: 'gzip' as never } : {}) });
      const result = await exportSpans(exporter, spans);
      await exporter.shutdown();
      assert.is(result.code, 0, String(result.error));
      const [call] = h.calls.calls;
      assert.is(call!.context.transport, 'grpc');
      assert.is(call!.context.principal, null);
      assert.ok(call!.context.requestId);
      assert.equal(
        call!.batches.map((b) => b.projectName),
        ['grpc-project'],
      );
      for (const span of spans) {
        const record = h.calls.spans().find((r) => r.spanId === span.spanContext().spanId)!;
        assertSameSpan(record, span, span.name === 'llm call' ? 'LLM' : 'AGENT', 'padded');
      }
    } finally {
      await h.server.close();
    }
  });
}

test('authenticate sees the authorization metadata; its refusals become gRPC codes', async () => {
  const seen: (string | null)[] = [];
  const h = await start({
    authenticate: async ({ authorization }) => {
      seen.push(authorization);
      if (authorization === 'Bearer good') return { ok: true, principal: { apiKey: 'k1' } };
      if (authorization === 'Bearer viewer') return { ok: false, code: 'PERMISSION_DENIED', message: 'viewers cannot ingest' };
      return { ok: false, code: 'UNAUTHENTICATED', message: 'missing or invalid token' };
    },
  });
  try {
    const body = encodeRequest([{ spanId: Buffer.alloc(8, 1) }]);
    const bearer = (token: string) => {
      const m = new grpc.Metadata();
      m.set('authorization', `Bearer ${token}`);
      return m;
    };
    const ok = await rawExport(h, body, bearer('good'));
    assert.is(ok.error, null);
    assert.equal(h.calls.calls[0]!.context.principal, { apiKey: 'k1' });

    const denied = await rawExport(h, body, bearer('viewer'));
    assert.is(denied.error?.code, grpc.status.PERMISSION_DENIED);
    assert.is(denied.error?.details, 'viewers cannot ingest');

    const anonymous = await rawExport(h, body);
    assert.is(anonymous.error?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(seen, ['Bearer good', 'Bearer viewer', null]);
    assert.is(h.calls.calls.length, 1);
  } finally {
    await h.server.close();
  }
});

test('malformed protobuf → INVALID_ARGUMENT with the reason', async () => {
  const h = await start();
  try {
    const { error } = await rawExport(h, Buffer.from('certainly not protobuf'));
    assert.is(error?.code, grpc.status.INVALID_ARGUMENT);
    assert.ok(error?.details.includes('not a valid protobuf ExportTraceServiceRequest'), error?.details);
  } finally {
    await h.server.close();
  }
});

test('partial success: rejected spans counted and explained in the response', async () => {
  const h = await start();
  try {
    const { error, response } = await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 2) }, { spanId: Buffer.alloc(8, 0) }]));
    assert.is(error, null);
    const answer = otlp.response.toObject(otlp.response.decode(response!), { longs: String });
    assert.equal(answer, {
      partialSuccess: { rejectedSpans: '1', errorMessage: '1 span(s) rejected: resource_spans[0] span 1: span_id is all zero' },
    });
    assert.equal(
      h.calls.spans().map((s) => s.spanId),
      ['0202020202020202'],
    );
  } finally {
    await h.server.close();
  }
});

test('x-project-name metadata > resource attribute > default', async () => {
  const h = await start();
  try {
    await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 3) }], { 'openinference.project.name': 'from-resource' }));
    const m = new grpc.Metadata();
    m.set('x-project-name', 'from-header');
    await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 4) }], { 'openinference.project.name': 'from-resource' }), m);
    await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 5) }]));
    assert.equal(
      h.calls.calls.map((c) => c.batches[0]!.projectName),
      ['from-resource', 'from-header', 'default'],
    );
  } finally {
    await h.server.close();
  }
});

test('oversized message and gzip bomb → RESOURCE_EXHAUSTED, never inflated past the limit', async () => {
  const h = await start();
  try {
    const big = await rawExport(h, Buffer.alloc(MAX + 1));
    assert.is(big.error?.code, grpc.status.RESOURCE_EXHAUSTED);
    // A 50 MB message that compresses to ~50 KB on the wire.
    assert.ok(zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024)).length < 100 * 1024);
    const bomb = await rawExport(h, Buffer.alloc(50 * 1024 * 1024), new grpc.Metadata(), {
      'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip,
      'grpc.max_send_message_length': -1,
    });
    assert.is(bomb.error?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.is(h.calls.calls.length, 0);
  } finally {
    await h.server.close();
  }
});

test('budget exhausted → RESOURCE_EXHAUSTED with RetryInfo; freed afterwards', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const budget = createIngestBudget({ maxInFlightRequests: 1, maxInFlightBytes: 1024 * 1024, retryAfterSeconds: 9 });
  const recorded = recordingSink();
  const h = await start({ budget, sink: async (b, c) => (await gate, recorded.sink(b, c)) });
  try {
    const first = rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 6) }]));
    while (budget.inFlight().requests === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 7) }]));
    assert.is(second.error?.code, grpc.status.RESOURCE_EXHAUSTED);
    const details = second.error!.metadata.get('grpc-status-details-bin')[0] as Buffer;
    assert.equal(decodeRetryDelaySeconds(details), { code: grpc.status.RESOURCE_EXHAUSTED, seconds: 9 });
    release();
    assert.is((await first).error, null);
    assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
    assert.is(recorded.spans().length, 1);
  } finally {
    await h.server.close();
  }
});

test('a compressed call reserves the size limit before grpc-js inflates it, then holds its real size; past the budget the next is refused unread', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const budget = createIngestBudget({ maxInFlightRequests: 8, maxInFlightBytes: MAX, retryAfterSeconds: 4 });
  const recorded = recordingSink();
  const h = await start({ budget, sink: async (b, c) => (await gate, recorded.sink(b, c)) });
  const gzip = { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip };
  try {
    const body = encodeRequest([{ spanId: Buffer.alloc(8, 1) }]);
    const first = rawExport(h, body, new grpc.Metadata(), gzip);
    while (budget.inFlight().requests === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(budget.inFlight(), { requests: 1, bytes: body.length });

    // Another compressed message could inflate to the limit, which no longer fits next to the first.
    const second = await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 2) }]), new grpc.Metadata(), gzip);
    assert.is(second.error?.code, grpc.status.RESOURCE_EXHAUSTED);
    const details = second.error!.metadata.get('grpc-status-details-bin')[0] as Buffer;
    assert.equal(decodeRetryDelaySeconds(details), { code: grpc.status.RESOURCE_EXHAUSTED, seconds: 4 });

    // An uncompressed one costs what it sent, and is let in.
    const third = rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 3) }]));
    while (budget.inFlight().requests < 2) await new Promise((r) => setTimeout(r, 5));
    release();
    assert.is((await first).error, null);
    assert.is((await third).error, null);
    assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
    assert.equal(
      recorded
        .spans()
        .map((s) => s.spanId)
        .sort(),
      ['0101010101010101', '0303030303030303'],
    );
  } finally {
    release();
    await h.server.close();
  }
});

test('a failing sink → UNAVAILABLE (retryable, nothing acknowledged), reported, budget freed', async () => {
  const h = await start({ sink: async () => Promise.reject(new Error('disk full')) });
  try {
    const { error } = await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 8) }]));
    assert.is(error?.code, grpc.status.UNAVAILABLE);
    assert.not.ok(error?.details.includes('disk full'));
    assert.is((h.errors[0] as Error).message, 'disk full');
    assert.equal(h.budget.inFlight(), { requests: 0, bytes: 0 });
  } finally {
    await h.server.close();
  }
});

test('close() stops the server: later calls fail', async () => {
  const h = await start();
  await h.server.close();
  const { error } = await rawExport(h, encodeRequest([{ spanId: Buffer.alloc(8, 9) }]), new grpc.Metadata(), {});
  assert.is(error?.code, grpc.status.UNAVAILABLE);
});

/** Reads google.rpc.Status{code, details: [Any{RetryInfo{retry_delay: Duration{seconds}}}]} with a throwaway schema. */
const decodeRetryDelaySeconds = (bytes: Buffer) => {
  const { root } = protobuf.parse(`
    syntax = "proto3";
    message Any { string type_url = 1; bytes value = 2; }
    message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
    message Duration { int64 seconds = 1; int32 nanos = 2; }
    message RetryInfo { Duration retry_delay = 1; }
  `);
  const status = root.lookupType('Status').toObject(root.lookupType('Status').decode(bytes)) as {
    code: number;
    details: { typeUrl: string; value: Uint8Array }[];
  };
  assert.is(status.details[0]!.typeUrl, 'type.googleapis.com/google.rpc.RetryInfo');
  const info = root.lookupType('RetryInfo').toObject(root.lookupType('RetryInfo').decode(status.details[0]!.value), { longs: Number }) as {
    retryDelay: { seconds: number };
  };
  return { code: status.code, seconds: info.retryDelay.seconds };
};

test.run();
