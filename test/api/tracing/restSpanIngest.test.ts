import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEventStoreDb } from '../../peers/eventStoreDb.ts';
import { freshDatabase } from '../../support/database.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { exportUntilAccepted, oneSpanExport, phoenixSpans, spansIngestedFor } from '../../support/spanIngest.ts';
import { startTestServer } from '../../support/testServer.ts';

/**
 * `POST /v1/projects/{id}/spans` is span ingest like an OTLP export: admitted by the same
 * in-flight budget and projection-lag gate, limited to the same request size; a large request is
 * tested in largeSpanRequest.test.ts.
 */
const test = suite('REST span creation goes through the span-ingest path');

test('a body over the request limit is refused with 413 naming the limit, before it is read', async () => {
  const server = await startTestServer({ env: { SERVICE_MAX_REQUEST_BYTES: '4096' } });
  try {
    const r = await callJson(server, 'POST', '/v1/projects/p/spans', phoenixSpans(50));
    assert.is(r.status, 413, r.text);
    assert.is(r.body.code, 'payload_too_large');
    assert.match(r.body.detail, 'exceeds the limit of 4096 bytes');
    // Sent without a declared length (chunked), it is cut off as it arrives past the limit.
    const chunked = await fetch(`${server.baseUrl}/v1/projects/p/spans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([JSON.stringify(phoenixSpans(50))]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.is(chunked.status, 413);
    const small = await callJson(server, 'POST', '/v1/projects/p/spans', phoenixSpans(2));
    assert.is(small.status, 202, small.text);
  } finally {
    await server.close();
  }
});

test('while the read models trail past the bound, span creation is refused like an export: 503 + Retry-After, nothing stored', async () => {
  const server = await startTestServer({ env: { SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS: '1' } });
  try {
    // Given the projections are held back past the bound
    await server.runner.stop();
    await exportUntilAccepted(server, 'before');
    await eventually(
      async () =>
        ((await (await fetch(`${server.baseUrl}/readyz`)).json()) as { projections: { name: string; seconds: number }[] }).projections,
      (projections) => (projections.find((p) => p.name === 'tracing')?.seconds ?? 0) > 1.2,
    );
    // When spans are posted over REST
    const refused = await callJson(server, 'POST', '/v1/projects/gated/spans', phoenixSpans(3));
    // Then they are refused as an export would be, after being held for a while
    assert.is(refused.status, 503, refused.text);
    assert.is(refused.body.code, 'server_busy');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(await spansIngestedFor(server, 'gated'), []);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    assert.match(metrics, /loupe_ingest_refused_requests_total\{reason="projection_lag"\} 1/);
    // And accepted once the read models catch up
    await server.runner.start();
    const accepted = await eventually(
      () => callJson(server, 'POST', '/v1/projects/gated/spans', phoenixSpans(3)),
      (r) => r.status === 202,
    );
    assert.equal(accepted.body, { total_received: 3, total_queued: 3 });
  } finally {
    await server.close();
  }
});

test('an append the event log refuses for its size (EventStoreDB MaxAppendSize) is 413 over REST and OTLP, not a 500', async () => {
  const log = await startEventStoreDb({ maxAppendSize: 64 * 1024 });
  const database = await freshDatabase();
  const server = await startTestServer({ database: { ...database, eventStoreUrl: log.url } });
  try {
    const big = phoenixSpans(100);
    for (const span of big.data) span.attributes['input.value'] = 'x'.repeat(2048);
    const rest = await callJson(server, 'POST', '/v1/projects/too-big/spans', big);
    assert.is(rest.status, 413, rest.text);
    assert.is(rest.body.code, 'payload_too_large');
    assert.match(rest.body.detail, 'maximum append size');
    const otlp = await fetch(server.otlpHttpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: oneSpanExport('too-big', 'x'.repeat(100 * 1024)),
    });
    assert.is(otlp.status, 413);
    assert.match(((await otlp.json()) as { detail: string }).detail, 'send smaller export batches');
    assert.is((await callJson(server, 'POST', '/v1/projects/too-big/spans', phoenixSpans(2))).status, 202);
  } finally {
    await server.close();
    await database.close();
    await log.close();
  }
});

test.run();
