import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import * as assert from 'uvu/assert';
import type { AttributeValue } from '../../domain/tracing/attributes.ts';
import type { SpanBatch, SpanRecord } from '../../domain/tracing/events.ts';
import type { IngestRequestContext } from '../../ingest/spanSink.ts';

/**
 * Real OpenTelemetry SDK spans for the receiver tests: a SERVER root with an LLM CLIENT child
 * that carries every attribute type, an event, an ERROR status and a session id.
 */
export const recordSampleTrace = async (
  options: { resource?: Record<string, string>; exporter?: SpanExporter; sessionId?: string } = {},
): Promise<ReadableSpan[]> => {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'loupe-test', ...options.resource }),
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: memory }),
      ...(options.exporter ? [new SimpleSpanProcessor({ exporter: options.exporter })] : []),
    ],
  });
  const tracer = provider.getTracer('loupe-ingest-test', '1.0.0');
  const root = tracer.startSpan('agent run', {
    kind: SpanKind.SERVER,
    attributes: { 'openinference.span.kind': 'agent', 'session.id': options.sessionId ?? 'sess-42' },
  });
  const child = tracer.startSpan(
    'llm call',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.token_count.prompt': 12,
        'llm.temperature': 0.25,
        'llm.streaming': true,
        'llm.model_name': 'gpt-test',
        tags: ['a', 'b'],
        scores: [1, 2, 3],
        weights: [0.5, 1.5],
        flags: [true, false],
        'session.id': options.sessionId ?? 'sess-42',
      },
    },
    trace.setSpan(context.active(), root),
  );
  child.addEvent('first token', { 'token.index': 0, 'token.text': 'Hello' });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  child.end();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  // Shutting down clears the in-memory exporter, so take the spans first.
  const spans = [...memory.getFinishedSpans()] as ReadableSpan[];
  await provider.shutdown();
  return spans;
};

/** Sends spans through an exporter in one request, as a batch processor would. */
export const exportSpans = (exporter: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));

export type RecordedCall = { batches: readonly SpanBatch[]; context: IngestRequestContext };

/** A sink that keeps what it was given, so tests can assert on exactly what would be stored. */
export const recordingSink = () => {
  const calls: RecordedCall[] = [];
  const sink = async (batches: readonly SpanBatch[], context: IngestRequestContext) => {
    calls.push({ batches: structuredClone(batches), context });
  };
  return { calls, sink, spans: () => calls.flatMap((c) => c.batches.flatMap((b) => b.spans)) };
};

const ns = ([s, n]: [number, number]) => (BigInt(s) * 1_000_000_000n + BigInt(n)).toString();

const expectedValue = (v: unknown): AttributeValue => {
  if (typeof v === 'string') return { str: v };
  if (typeof v === 'boolean') return { bool: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { int: String(v) } : { float: v };
  if (Array.isArray(v)) return { array: v.map(expectedValue) };
  throw new Error(`unexpected attribute ${String(v)}`);
};

const KINDS = ['SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];

/** The record a span must become, field for field, to survive ingest exactly. */
export const assertSameSpan = (record: SpanRecord, span: ReadableSpan, spanKind: string, sessionId: string | null) => {
  const ctx = span.spanContext();
  assert.equal(record, {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: KINDS[span.kind],
    spanKind,
    status: { code: (['UNSET', 'OK', 'ERROR'] as const)[span.status.code], message: span.status.message ?? '' },
    startTimeUnixNano: ns(span.startTime),
    endTimeUnixNano: ns(span.endTime),
    attributes: Object.fromEntries(Object.entries(span.attributes).map(([k, v]) => [k, expectedValue(v)])),
    events: span.events.map((e) => ({
      name: e.name,
      timeUnixNano: ns(e.time),
      attributes: Object.fromEntries(Object.entries(e.attributes ?? {}).map(([k, v]) => [k, expectedValue(v)])),
    })),
    resource: record.resource,
    sessionId,
  });
};

/** The vendored OTLP types, loaded independently of the code under test, to build and read raw messages. */
export const otlpTypesForTests = (() => {
  const dir = fileURLToPath(new URL('../../ingest/proto/', import.meta.url));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : dir + target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  return {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
  };
})();
