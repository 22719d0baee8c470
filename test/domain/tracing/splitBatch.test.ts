import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpanBatch } from '../../../domain/tracing/events.ts';
import { splitBatch } from '../../../domain/tracing/splitBatch.ts';

test('given 5 spans over 3 resources cut by 2, then order is kept and each part carries only the resources its spans use', () => {
  const resources = [{ r: { str: 'a' } }, { r: { str: 'b' } }, { r: { str: 'c' } }];
  const spans = [0, 2, 2, 1, 0].map((resource, i) => ({ spanId: String(i), resource }));
  const batch = { projectName: 'p', resources, spans } as unknown as SpanBatch;
  const parts = splitBatch(batch, 2);
  assert.is(parts.length, 3);
  const flattened = parts.flatMap((p) => p.spans.map((s) => [s.spanId, p.resources[s.resource]]));
  assert.equal(
    flattened,
    batch.spans.map((s) => [s.spanId, resources[s.resource]]),
  );
  assert.equal(
    parts.map((p) => p.resources.length),
    [2, 2, 1],
  );
  assert.ok(parts.every((p) => p.projectName === 'p'));
});

test('a batch within the size is itself, uncopied', () => {
  const batch = { projectName: 'p', resources: [{}], spans: [{ spanId: '1', resource: 0 }] } as unknown as SpanBatch;
  assert.is(splitBatch(batch, 5)[0], batch);
  assert.is(splitBatch(batch)[0], batch);
});

test.run();
