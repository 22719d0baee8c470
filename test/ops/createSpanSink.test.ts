import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKurrentEventStore } from '../../domain/eventstore/kurrentEventStore.ts';
import { IngestError } from '../../ingest/ingestError.ts';
import { createSpanSink } from '../../ops/createSpanSink.ts';
import { startEventStoreDb } from '../peers/eventStoreDb.ts';
import { attrs, batch, newTraceId, spanRecord } from '../support/spanFixtures.ts';

/** The span sink on an EventStoreDB log (the stand-in): how many appends a request costs, and what a too large one gets. */
const test = suite('span sink on EventStoreDB');

// As the OTLP receivers pass it with auth off (the server always authenticates: a null principal may not ingest).
const context = { transport: 'http' as const, principal: { kind: 'anonymous' as const }, requestId: 'r-1' };

test('an OTLP request is one append per project (never one per span); over MaxAppendSize it is a 413 naming the limit, nothing stored', async () => {
  const appends: string[] = [];
  const server = await startEventStoreDb({ maxAppendSize: 64 * 1024, trace: (line) => line.startsWith('Append') && appends.push(line) });
  const kurrent = createKurrentEventStore(server.url);
  try {
    const sink = createSpanSink(kurrent.store);
    const spans = (n: number) => Array.from({ length: n }, () => spanRecord({ traceId: newTraceId() }));
    await sink([batch('alpha', spans(3))], context);
    const spanAppends = () => appends.filter((a) => a.startsWith('Append spans-'));
    assert.is(spanAppends().length, 1, appends.join('\n'));
    assert.match(spanAppends()[0]!, / 1 events /, 'the three spans are one event');
    await sink([batch('alpha', spans(2)), batch('beta', spans(2))], context);
    assert.is(spanAppends().length, 3, 'two projects: one append each');

    const big = Array.from({ length: 200 }, () =>
      spanRecord({ traceId: newTraceId(), attributes: attrs({ 'input.value': 'x'.repeat(1000) }) }),
    );
    const before = server.log.records().length;
    try {
      await sink([batch('alpha', big)], context);
      assert.unreachable('over the limit');
    } catch (error) {
      assert.instance(error, IngestError);
      assert.is((error as IngestError).code, 'payload_too_large');
      assert.match((error as IngestError).message, /65536 bytes/);
    }
    assert.is(server.log.records().length, before);
  } finally {
    await kurrent.close();
    await server.close();
  }
});

test.run();
