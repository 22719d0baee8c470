import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeAndRoute, type DecodeJob, type OtlpFormat } from '../../ingest/decodeJob.ts';
import { createExportDecoder } from '../../ingest/exportDecoder.ts';
import { IngestError } from '../../ingest/ingestError.ts';
import { otlpTypesForTests as otlp } from './sampleSpans.ts';

/**
 * Large exports are decoded in a worker thread so the main thread keeps answering; what callers
 * rely on is that the worker's answer is exactly the inline one, that its refusals are the same
 * IngestErrors, and that a worker dying fails only the requests it held.
 */
const test = suite('export decoder: off-thread decoding gives exactly the inline result');

/** `resources` ResourceSpans of `perResource` spans each (a few invalid), as OTLP/protobuf. */
const protobufBody = (resources: number, perResource: number): Uint8Array => {
  let n = 0;
  const span = () => {
    n++;
    const spanId = Buffer.alloc(8);
    spanId.writeUInt32BE(n, 4);
    return {
      traceId: Buffer.alloc(16, (n % 200) + 1),
      spanId: n % 97 === 0 ? Buffer.alloc(8) : spanId,
      name: `span ${n}`,
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000000000001',
      attributes: [
        { key: 'n', value: { intValue: n } },
        { key: 'session.id', value: { stringValue: `s${n % 3}` } },
      ],
    };
  };
  const request = otlp.request.fromObject({
    resourceSpans: Array.from({ length: resources }, (_, r) => ({
      resource: { attributes: [{ key: 'openinference.project.name', value: { stringValue: `p${r % 2}` } }] },
      scopeSpans: [{ spans: Array.from({ length: perResource }, span) }],
    })),
  });
  return otlp.request.encode(request).finish();
};

const job = (body: Uint8Array, format: OtlpFormat = 'protobuf'): DecodeJob => ({
  body,
  format,
  projectHeader: null,
  defaultProjectName: 'default',
});

test('given a body of thousands of spans over many resources, when decoded in the worker in small slices, then the result equals the inline decode', async () => {
  const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0, sliceSize: 7 });
  try {
    const body = protobufBody(30, 100);
    const inline = decodeAndRoute(job(body.slice()));
    const offThread = await decoder.decode(job(body.slice()));
    assert.ok(inline.rejectedSpans > 0 && inline.acceptedSpans > 2000);
    assert.equal(offThread, inline);
  } finally {
    await decoder.close();
  }
});

/** Phoenix's span JSON for `POST /v1/projects/{id}/spans`: `count` spans, every tenth with a span id that cannot be stored. */
const phoenixBody = (count: number, extra: unknown[] = []): Uint8Array =>
  new TextEncoder().encode(
    JSON.stringify({
      data: [
        ...Array.from({ length: count }, (_, i) => ({
          name: `s${i}`,
          context: { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: i % 10 === 9 ? 'short' : i.toString(16).padStart(16, '1') },
          span_kind: 'LLM',
          start_time: '2024-01-01T00:00:00.123456789Z',
          end_time: '2024-01-01T00:00:01+02:00',
          status_code: 'OK',
          attributes: { n: i, nested: { a: [1, 'x'] } },
        })),
        ...extra,
      ],
    }),
  );

test('given a Phoenix span body, when decoded in the worker, then spans, invalid spans and shape issues equal the inline decode', async () => {
  const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0, sliceSize: 7 });
  try {
    const phoenix = (body: Uint8Array): DecodeJob => ({ body, format: 'phoenix', projectName: 'rest' });
    const body = phoenixBody(3000);
    const inline = decodeAndRoute(phoenix(body.slice()));
    assert.equal(await decoder.decode(phoenix(body)), inline);
    assert.is(inline.batches[0]!.spans.length, 2700);
    const verdict = inline.phoenix;
    assert.ok(verdict?.kind === 'spans');
    assert.is(verdict.received, 3000);
    assert.is(verdict.invalid.length, 300);
    assert.ok(
      verdict.invalid.every((s) => s.span_id === 'short' && s.error.includes('span')),
      JSON.stringify(verdict.invalid[0]),
    );
    const misshapen = phoenixBody(20, [{ name: 1 }]);
    const refused = await decoder.decode(phoenix(misshapen.slice()));
    assert.equal(refused, decodeAndRoute(phoenix(misshapen)));
    assert.ok(refused.phoenix?.kind === 'not_spans');
    assert.ok(
      refused.phoenix.issues.every((issue) => issue.loc[2] === 20),
      'every issue names the span that has it',
    );
    assert.is(refused.batches.length, 0);
    const malformed = await decoder.decode(phoenix(new TextEncoder().encode('{"data": [')));
    assert.is(malformed.phoenix?.kind, 'malformed');
  } finally {
    await decoder.close();
  }
});

test('given a malformed body, then the worker refuses it with the same IngestError, and keeps working', async () => {
  const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0 });
  try {
    const garbage = new TextEncoder().encode('{"resourceSpans": [');
    let inlineError: unknown;
    try {
      decodeAndRoute(job(garbage.slice(), 'json'));
    } catch (e) {
      inlineError = e;
    }
    const error = await decoder.decode(job(garbage, 'json')).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(error, IngestError);
    assert.is((error as IngestError).status, 400);
    assert.is((error as IngestError).message, (inlineError as Error).message);
    assert.is((await decoder.decode(job(protobufBody(1, 3)))).acceptedSpans, 3);
  } finally {
    await decoder.close();
  }
});

test('given the worker is stopped, then the next decode starts a new one', async () => {
  const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0 });
  try {
    assert.is((await decoder.decode(job(protobufBody(1, 2)))).acceptedSpans, 2);
    await decoder.close();
    assert.is((await decoder.decode(job(protobufBody(1, 4)))).acceptedSpans, 4);
  } finally {
    await decoder.close();
  }
});

test.run();

const limits = suite('export decoder: a body too big to decode ends a worker, never the server');

limits(
  'given a worker heap limit, when a body decodes into more than it, then that request gets 413 and the next decode works',
  async () => {
    const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0, maxHeapMb: 16 });
    try {
      const huge = protobufBody(1, 60_000);
      const error = await decoder.decode(job(huge)).then(
        () => null,
        (e: unknown) => e,
      );
      assert.instance(error, IngestError);
      assert.is((error as IngestError).status, 413, String(error));
      assert.match((error as IngestError).message, /16 MiB/);
      assert.is((await decoder.decode(job(protobufBody(1, 5)))).acceptedSpans, 5);
    } finally {
      await decoder.close();
    }
  },
);

limits('given an idle worker, then it is stopped after idleMs and a later decode starts another', async () => {
  const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 0, idleMs: 50 });
  try {
    assert.is((await decoder.decode(job(protobufBody(1, 2)))).acceptedSpans, 2);
    await new Promise((r) => setTimeout(r, 200));
    assert.is((await decoder.decode(job(protobufBody(1, 3)))).acceptedSpans, 3);
  } finally {
    await decoder.close();
  }
});

limits.run();
