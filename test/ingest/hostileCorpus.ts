import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import * as assert from 'uvu/assert';
import { rawTraceService } from '../../ingest/grpcServer.ts';
import { eventually } from '../support/restClient.ts';
import { hex, newSpanId, newTraceId } from '../support/spanFixtures.ts';
import type { TestServer } from '../support/testServer.ts';
import { otlpTypesForTests as otlp } from './sampleSpans.ts';

/**
 * Hostile OTLP requests for the hostile-input suite, written once in OTLP/JSON's shape (hex ids,
 * int64 as strings) and sent as protobuf, JSON or gRPC. `BAD_UTF8` in any string is replaced,
 * after encoding, by bytes that are not UTF-8 (same length, so protobuf lengths stay right).
 */
export type AnyV =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyV[] } }
  | { kvlistValue: { values: KV[] } };
export type KV = { key: string; value: AnyV };
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KV[];
  events?: { name: string; timeUnixNano: string; attributes?: KV[] }[];
  status?: { code: number; message: string };
};
export type OtlpRequest = { resourceSpans: { resource: { attributes: KV[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };

/** Four ASCII control bytes, replaced after encoding by four bytes that are not UTF-8. */
export const BAD_UTF8 = '\u0001\u0002\u0003\u0004';
const BAD_MARKER = Buffer.from(BAD_UTF8, 'utf8');
const BAD_BYTES = Buffer.from([0xff, 0xfe, 0xc0, 0x80]);
/** A high surrogate encoded on its own (CESU-8 style): invalid UTF-8 a naive decoder turns into U+D800. */
export const SURROGATE_BYTES_MARKER = '\u0005\u0006\u0007';
const SURROGATE_MARKER = Buffer.from(SURROGATE_BYTES_MARKER, 'utf8');
const SURROGATE_BYTES = Buffer.from([0xed, 0xa0, 0x80]);

const replaceAll = (buf: Buffer, from: Buffer, to: Buffer): Buffer => {
  let at = buf.indexOf(from);
  while (at >= 0) {
    to.copy(buf, at);
    at = buf.indexOf(from, at + to.length);
  }
  return buf;
};

const corrupt = (buf: Buffer): Buffer => replaceAll(replaceAll(buf, BAD_MARKER, BAD_BYTES), SURROGATE_MARKER, SURROGATE_BYTES);

export const str = (s: string): AnyV => ({ stringValue: s });
export const kv = (key: string, value: AnyV | string): KV => ({ key, value: typeof value === 'string' ? str(value) : value });

const NOW = BigInt(Date.now()) * 1_000_000n;

/** A valid span with the given changes. */
export const otlpSpan = (overrides: Partial<OtlpSpan> = {}): OtlpSpan => ({
  traceId: newTraceId(),
  spanId: newSpanId(),
  name: 'span',
  kind: 1,
  startTimeUnixNano: String(NOW),
  endTimeUnixNano: String(NOW + 1_000_000n),
  attributes: [],
  events: [],
  status: { code: 0, message: '' },
  ...overrides,
});

export const request = (project: string, spans: OtlpSpan[], resource: KV[] = []): OtlpRequest => ({
  resourceSpans: [{ resource: { attributes: [kv('openinference.project.name', project), ...resource] }, scopeSpans: [{ spans }] }],
});

/** A kvlist nested `levels` deep, as an object (for encoders that can take it). */
export const nestedValue = (levels: number): AnyV => {
  let v: AnyV = str('bottom');
  for (let i = 0; i < levels; i++) v = { kvlistValue: { values: [kv('k', v)] } };
  return v;
};

// ---- encoders -----------------------------------------------------------------------------

const idBytes = (h: string | undefined) => Buffer.from(h ?? '', 'hex');

export const toProtobuf = (r: OtlpRequest): Buffer => {
  const message = otlp.request.fromObject({
    resourceSpans: r.resourceSpans.map((rs) => ({
      resource: rs.resource,
      scopeSpans: rs.scopeSpans.map((ss) => ({
        spans: ss.spans.map((s) => ({
          ...s,
          traceId: idBytes(s.traceId),
          spanId: idBytes(s.spanId),
          parentSpanId: idBytes(s.parentSpanId),
        })),
      })),
    })),
  });
  return corrupt(Buffer.from(otlp.request.encode(message).finish()));
};

export const toJson = (r: OtlpRequest): Buffer => corrupt(Buffer.from(JSON.stringify(r), 'utf8'));

/** OTLP/JSON of a request whose one span carries an attribute nested `levels` deep, built as text (no recursion). */
export const deepJsonRequest = (project: string, levels: number, canaryName = 'deep'): { body: Buffer; spanId: string } => {
  const span = otlpSpan({ name: canaryName, attributes: [kv('placeholder', 'x')] });
  const open = '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(levels);
  const close = '}]}}'.repeat(levels);
  const text = JSON.stringify(request(project, [span])).replace('{"stringValue":"x"}', `${open}{"stringValue":"bottom"}${close}`);
  return { body: Buffer.from(text), spanId: span.spanId };
};

/** Protobuf of the same, the nested value written byte by byte (protobufjs' encoder recurses). */
export const deepProtobufRequest = (project: string, levels: number): { body: Buffer; spanId: string } => {
  const field = (no: number, payload: Buffer) => Buffer.concat([varint((no << 3) | 2), varint(payload.length), payload]);
  let any = field(1, Buffer.from('bottom'));
  for (let i = 0; i < levels; i++) {
    const keyValue = Buffer.concat([field(1, Buffer.from('k')), field(2, any)]);
    any = field(6, field(1, keyValue));
  }
  // The span without attributes is encoded normally; the deep attribute (Span field 9) and the
  // enclosing messages (ScopeSpans.spans = 2, ResourceSpans.scope_spans = 2, resource = 1,
  // request.resource_spans = 1) are written by hand around it.
  const span = otlpSpan({ name: 'deep' });
  const base = otlp.request.decode(toProtobuf(request(project, [span]))) as unknown as {
    resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  const s = base.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
  const keyValue = Buffer.concat([field(1, Buffer.from('deep')), field(2, any)]);
  const spanBytes = Buffer.concat([
    Buffer.from(
      otlp.request
        .lookupType('opentelemetry.proto.trace.v1.Span')
        .encode(s as never)
        .finish(),
    ),
    field(9, keyValue),
  ]);
  const resourceBytes = Buffer.from(
    otlp.request
      .lookupType('opentelemetry.proto.resource.v1.Resource')
      .encode({ attributes: [{ key: 'openinference.project.name', value: { stringValue: project } }] } as never)
      .finish(),
  );
  const scopeSpans = field(2, spanBytes);
  const resourceSpans = Buffer.concat([field(1, resourceBytes), field(2, scopeSpans)]);
  return { body: field(1, resourceSpans), spanId: span.spanId };
};

const varint = (n: number): Buffer => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
};

// ---- transports ---------------------------------------------------------------------------

export type Sent = { readonly status: number; readonly text: string };

export const postOtlp = async (
  server: TestServer,
  body: Buffer,
  contentType: 'application/x-protobuf' | 'application/json',
  headers: Record<string, string> = {},
): Promise<Sent> => {
  const r = await fetchRetryingResets(server.otlpHttpUrl, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
  const bytes = Buffer.from(await r.arrayBuffer());
  const text = contentType === 'application/json' ? bytes.toString('utf8') : describeProtobufResponse(bytes);
  return { status: r.status, text };
};

/**
 * A kept-alive connection the server closes as idle just as the next request goes out is reset
 * (after a rebuild has kept the event loop busy, say); exporters retry that, and so does this.
 */
const fetchRetryingResets = async (url: string, init: RequestInit): Promise<Response> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (e) {
      const cause = String((e as { cause?: unknown }).cause ?? e);
      if (attempt >= 3 || !/ECONNRESET|other side closed/.test(cause)) throw new Error(`${init.method ?? 'GET'} ${url} failed: ${cause}`);
    }
  }
};

/** `call` for GETs, retrying a reset kept-alive connection (see fetchRetryingResets). */
export const getJson = async (server: TestServer, path: string): Promise<{ status: number; body: any; text: string }> => {
  const r = await fetchRetryingResets(`${server.baseUrl}${path}`, { method: 'GET' });
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, body, text };
};

const describeProtobufResponse = (bytes: Buffer): string => {
  try {
    return JSON.stringify(otlp.response.toObject(otlp.response.decode(bytes)));
  } catch {
    return bytes.toString('utf8');
  }
};

const RawClient = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');

/** gRPC status 0 (OK) answers as HTTP 200, INVALID_ARGUMENT as 400, anything else as 500 + code, for one assertion shape. */
export const sendGrpc = (server: TestServer, body: Buffer, metadata = new grpc.Metadata()): Promise<Sent> =>
  new Promise((resolve) => {
    const client = new RawClient(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
    (client as unknown as { Export: (b: Buffer, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, r?: Buffer) => void) => void }).Export(
      body,
      metadata,
      (error, response) => {
        client.close();
        if (error === null) resolve({ status: 200, text: describeProtobufResponse(response ?? Buffer.alloc(0)) });
        else if (error.code === grpc.status.INVALID_ARGUMENT) resolve({ status: 400, text: error.details });
        else if (error.code === grpc.status.RESOURCE_EXHAUSTED || error.code === grpc.status.UNAVAILABLE)
          resolve({ status: 429, text: error.details });
        else resolve({ status: 500, text: `gRPC ${error.code}: ${error.details}` });
      },
    );
  });

/** Writes raw bytes to the OTLP/HTTP port and returns whatever comes back before the server closes or 3 s pass. */
export const rawHttp = (server: TestServer, bytes: Buffer, endAfterWrite = true): Promise<string> =>
  new Promise((resolve) => {
    const port = Number(new URL(server.otlpHttpUrl).port);
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    socket.setTimeout(3000, done);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', done);
    socket.on('close', done);
    socket.write(bytes, () => {
      if (endAfterWrite) socket.end();
    });
  });

// ---- the proof ----------------------------------------------------------------------------

/**
 * The server still ingests: a normal span sent now over OTLP/HTTP becomes visible over REST
 * within `withinMs` (the projection is behind whatever the hostile request stored).
 */
export const assertStillIngests = async (server: TestServer, after: string, withinMs = 15_000): Promise<void> => {
  const span = otlpSpan({ name: `canary after ${after}` });
  const sent = await postOtlp(server, toJson(request('canary', [span])), 'application/json');
  assert.is(sent.status, 200, `the canary after ${after} was refused: ${sent.text}`);
  const started = Date.now();
  const seen = await eventually(
    () => getJson(server, `/v1/projects/canary/spans?span_id=${span.spanId}`),
    (r) => r.status === 200 && r.body.data.length === 1,
    withinMs,
  );
  assert.ok(
    seen.status === 200 && seen.body.data.length === 1,
    `the canary after ${after} was not visible within ${withinMs} ms (status ${seen.status}, ${Date.now() - started} ms)`,
  );
};

/** What the hostile request stored reads back over REST without a 5xx. */
export const assertReadable = async (server: TestServer, project: string, after: string): Promise<void> => {
  for (const path of [
    `/v1/projects/${encodeURIComponent(project)}/spans?limit=1000`,
    `/v1/projects/${encodeURIComponent(project)}/traces?include_spans=true`,
    `/v1/projects/${encodeURIComponent(project)}/sessions`,
  ]) {
    const r = await getJson(server, path);
    assert.ok(r.status < 500, `GET ${path} after ${after} → ${r.status} ${r.text.slice(0, 300)}`);
  }
};

export { hex };
