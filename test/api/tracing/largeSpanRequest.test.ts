import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { START } from '../../../domain/eventstore/types.ts';
import { MAX_SPANS_PER_EVENT } from '../../../domain/tracing/splitBatch.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { exportUntilAccepted, phoenixSpans, spansIngestedFor } from '../../support/spanIngest.ts';
import { startTestServer } from '../../support/testServer.ts';

/**
 * One large `POST /v1/projects/{id}/spans` is stored like a large OTLP export: in events of at
 * most MAX_SPANS_PER_EVENT spans, decoded off the main thread, so it neither becomes one huge
 * event nor holds up the exporters.
 */
const test = suite('a large REST span request');

/**
 * How soon the export sent meanwhile is listed is a matter of machine speed (the lag gate keeps it
 * within the bound on a machine that keeps up): it is measured by `ops/bench/hostileLoad.ts
 * large-rest` (BENCHMARKS.md), not here. What this asserts holds on any machine: the events'
 * size, and that the server answered the other exporter while it was storing the large request.
 */
test('a 50,000-span request is stored as events of at most 2,000 spans, and an OTLP export sent meanwhile is answered and stored', async () => {
  const server = await startTestServer();
  try {
    const request = callJson(server, 'POST', '/v1/projects/big-rest/spans', phoenixSpans(50_000)).then((answer) => ({
      answer,
      at: Date.now(),
    }));
    // Once the request is being stored (its first event is in the log), another exporter sends a span.
    await eventually(
      () => server.store.readAll(START, 1, { types: ['SpansIngested'] }),
      (page) => page.length > 0,
    );
    const other = await exportUntilAccepted(server, 'meanwhile');
    const listed = await eventually(
      () => callJson(server, 'GET', '/v1/projects/meanwhile/spans'),
      (r) => r.status === 200 && r.body.data.length === 1,
    );
    assert.is(listed.body.data.length, 1);

    const { answer, at } = await request;
    assert.is(answer.status, 202, answer.text);
    assert.equal(answer.body, { total_received: 50_000, total_queued: 50_000 });
    assert.ok(other.firstAnswer < at, 'the other exporter was answered while the large request was being stored');
    const sizes = await spansIngestedFor(server, 'big-rest');
    assert.ok(
      sizes.every((n) => n <= MAX_SPANS_PER_EVENT),
      `event sizes ${sizes.join(', ')}`,
    );
    assert.is(
      sizes.reduce((a, b) => a + b, 0),
      50_000,
    );
    assert.is(sizes.length, 25);
    const stored = await callJson(server, 'GET', '/v1/projects/big-rest/spans?limit=1');
    assert.is(stored.body.data.length, 1);
  } finally {
    await server.close();
  }
});

test.run();
