import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { AttrValue, GeneratedSpan } from './spanGenerator.ts';

const PROTO_DIR = fileURLToPath(new URL('../../ingest/proto/', import.meta.url));

let requestType: protobuf.Type | undefined;

/** The vendored OTLP request type, loaded on first use. */
const otlpRequestType = (): protobuf.Type => {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_DIR, target));
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  root.resolveAll();
  requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  return requestType;
};

/** fixed64 as protobufjs' encoder takes it without a Long class: low and high 32 bits. */
const fixed64 = (n: bigint) => ({ low: Number(n & 0xffffffffn) | 0, high: Number(n >> 32n) | 0, unsigned: true });

const anyValue = (v: AttrValue) =>
  'str' in v ? { stringValue: v.str } : 'int' in v ? { intValue: v.int } : 'float' in v ? { doubleValue: v.float } : { boolValue: v.bool };

const otlpSpan = (s: GeneratedSpan) => ({
  traceId: Buffer.from(s.traceId, 'hex'),
  spanId: Buffer.from(s.spanId, 'hex'),
  parentSpanId: s.parentId === null ? Buffer.alloc(0) : Buffer.from(s.parentId, 'hex'),
  name: s.name,
  kind: s.kind,
  startTimeUnixNano: fixed64(s.startNs),
  endTimeUnixNano: fixed64(s.endNs),
  attributes: s.attributes.map(([key, value]) => ({ key, value: anyValue(value) })),
  status: { code: s.status.code, message: s.status.message },
});

/** One OTLP/protobuf `ExportTraceServiceRequest` body for these spans, from one resource. */
export const encodeExportRequest = (spans: readonly GeneratedSpan[], projectName: string): Buffer => {
  const type = otlpRequestType();
  const message = {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'loupe-bench-agent' } },
            { key: 'openinference.project.name', value: { stringValue: projectName } },
            { key: 'telemetry.sdk.language', value: { stringValue: 'python' } },
          ],
        },
        scopeSpans: [{ scope: { name: 'openinference.instrumentation.bench', version: '1.0.0' }, spans: spans.map(otlpSpan) }],
      },
    ],
  };
  // Plain objects in the message's shape encode directly (fromObject would only copy them).
  return Buffer.from(type.encode(message).finish());
};
