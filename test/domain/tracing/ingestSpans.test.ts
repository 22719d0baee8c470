import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpansIngestedData } from '../../../domain/tracing/events.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';

const context = { actor: 'apikey:k1', requestId: 'r1', now: () => new Date('2024-01-01T00:00:00Z') };

test('a new project name creates the project first, then one SpansIngested per project per request', async () => {
  const { store, all } = memoryEventStore();
  const a = spanRecord({ traceId: newTraceId() });
  const b = spanRecord({ traceId: newTraceId() });
  const position = await ingestSpans(store, [batch('shop', [a, b]), batch('other', [a])], context);
  assert.equal(
    all.map((e) => e.type),
    ['ProjectCreated', 'SpansIngested', 'ProjectCreated', 'SpansIngested'],
  );
  assert.equal(position, all.at(-1)!.position);
  const shop = all[0]!.data as { projectId: string };
  const ingested = all[1]!;
  assert.ok(ingested.stream.startsWith(`spans-${shop.projectId}-`), 'a fresh stream per request in the project');
  assert.equal((ingested.data as SpansIngestedData).projectId, shop.projectId);
  assert.equal((ingested.data as SpansIngestedData).spans.length, 2);
  assert.equal(ingested.metadata, { actor: 'apikey:k1', requestId: 'r1', time: '2024-01-01T00:00:00.000Z', causation: 'IngestSpans' });
  await ingestSpans(store, [batch('shop', [b])], context);
  assert.equal(all.filter((e) => e.type === 'ProjectCreated').length, 2, 'an existing project is not created again');
  assert.equal(new Set(all.filter((e) => e.type === 'SpansIngested').map((e) => e.stream)).size, 3);
});

test('when another process creates the project meanwhile, both use that one project', async () => {
  const { store, all, hooks } = memoryEventStore();
  hooks.beforeAppend = async (stream) => {
    assert.is(stream, projectStream('shop'));
    await store.appendToStream(
      stream,
      [
        {
          type: 'ProjectCreated',
          data: { projectId: 'theirs', name: 'shop', description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
          metadata: { actor: 'x', requestId: null, time: 't', causation: null },
        },
      ],
      'no_stream',
    );
  };
  await ingestSpans(store, [batch('shop', [spanRecord({ traceId: newTraceId() })])], context);
  assert.equal(
    all.map((e) => e.type),
    ['ProjectCreated', 'SpansIngested'],
  );
  assert.is((all[1]!.data as SpansIngestedData).projectId, 'theirs');
});

test('strings jsonb cannot hold (NUL, lone surrogates) are replaced, so the append cannot fail on them', async () => {
  const { store, all } = memoryEventStore();
  const s = spanRecord({
    traceId: newTraceId(),
    name: 'a\u0000b',
    attributes: { 'k\u0000': { str: 'x\ud800y' }, ok: { array: [{ str: '\udc00' }] } },
  });
  await ingestSpans(store, [batch('shop', [s])], context);
  const stored = (all[1]!.data as SpansIngestedData).spans[0]!;
  assert.is(stored.name, 'a\ufffdb');
  assert.equal(stored.attributes, { 'k\ufffd': { str: 'x\ufffdy' }, ok: { array: [{ str: '\ufffd' }] } });
});

test('a large batch becomes events of at most 2,000 spans, in order, the project created once; the last position is returned', async () => {
  const { store, all } = memoryEventStore();
  const traceId = newTraceId();
  const spans = Array.from({ length: 4001 }, () => spanRecord({ traceId }));
  const position = await ingestSpans(store, [batch('big', spans)], context);
  assert.equal(
    all.map((e) => e.type),
    ['ProjectCreated', 'SpansIngested', 'SpansIngested', 'SpansIngested'],
  );
  const parts = all.slice(1).map((e) => (e.data as SpansIngestedData).spans);
  assert.equal(
    parts.map((p) => p.length),
    [2000, 2000, 1],
  );
  assert.equal(
    parts.flat().map((s) => s.spanId),
    spans.map((s) => s.spanId),
  );
  assert.equal(position, all.at(-1)!.position);
});

test('nothing to store: no event, null position', async () => {
  const { store, all } = memoryEventStore();
  assert.is(await ingestSpans(store, [], context), null);
  assert.is(all.length, 0);
});

test.run();
