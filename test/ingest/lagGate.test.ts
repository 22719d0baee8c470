import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawTraceService } from '../../ingest/grpcServer.ts';
import { createIngestBudget } from '../../ingest/ingestBudget.ts';
import { closingLag, gateBudgetOnLag, MAX_HELD } from '../../ingest/lagGate.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { otlpTypesForTests as otlp } from './sampleSpans.ts';

const test = suite('ingest refused while the projections trail by more than the configured lag');

const oneSpanJson = () => {
  const start = BigInt(Date.now()) * 1_000_000n;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'lag-test' } }] },
        scopeSpans: [
          {
            scope: {},
            spans: [
              {
                traceId: randomBytes(16).toString('hex'),
                spanId: randomBytes(8).toString('hex'),
                name: 'held back',
                kind: 1,
                startTimeUnixNano: start.toString(),
                endTimeUnixNano: (start + 1_000_000n).toString(),
              },
            ],
          },
        ],
      },
    ],
  });
};

const postSpan = (server: TestServer) =>
  fetch(server.otlpHttpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: oneSpanJson() });

const RawClient = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');
const grpcExport = (server: TestServer) =>
  new Promise<grpc.ServiceError | null>((resolve) => {
    const body = otlp.request
      .encode(
        otlp.request.fromObject({
          resourceSpans: [
            {
              scopeSpans: [
                { spans: [{ traceId: randomBytes(16), spanId: randomBytes(8), name: 'g', startTimeUnixNano: 1, endTimeUnixNano: 2 }] },
              ],
            },
          ],
        }),
      )
      .finish();
    const client = new RawClient(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    (client as unknown as { Export: (b: Buffer, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void }).Export(
      Buffer.from(body),
      new grpc.Metadata(),
      (error) => {
        client.close();
        resolve(error);
      },
    );
  });

type Readiness = { projections: { name: string; events: number; seconds: number; stopped: boolean }[] };
const readiness = async (server: TestServer): Promise<Readiness> => (await fetch(`${server.baseUrl}/readyz`)).json() as Promise<Readiness>;

const until = async <T>(what: string, probe: () => Promise<T | null>, ms = 15_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

test('tracing held back past the bound → 503 + Retry-After and RESOURCE_EXHAUSTED; lag in /readyz and /metrics; accepted again once it catches up', async () => {
  const server = await startTestServer({ env: { SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS: '1' } });
  try {
    // Given the projection runner is held back (as if it could not keep up) after one accepted export
    await server.runner.stop();
    assert.is((await postSpan(server)).status, 200);

    // When the oldest span not yet visible is older than the bound
    const lagging = await until('the tracing lag to pass 1 s', async () => {
      const tracing = (await readiness(server)).projections.find((p) => p.name === 'tracing');
      return tracing && tracing.seconds > 1.2 ? tracing : null;
    });
    assert.ok(lagging.events >= 1);

    // Then both receivers refuse new exports without storing them, and say when to come back
    const refused = await postSpan(server);
    assert.is(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.is(((await refused.json()) as { code: string }).code, 'server_busy');
    const grpcError = await grpcExport(server);
    assert.is(grpcError?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.ok(grpcError?.metadata.get('grpc-status-details-bin').length === 1, 'RetryInfo for the exporter');

    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    assert.match(metrics, /loupe_ingest_refused_requests_total\{reason="projection_lag"\} 2/);
    assert.match(metrics, /loupe_ingest_accepted_spans_total\{transport="http"\} 1/);
    assert.match(metrics, /loupe_projection_lag_seconds\{projection="tracing"\} (1\.[2-9]|[2-9])/);
    assert.match(metrics, /loupe_projection_lag_events\{projection="tracing"\} [1-9]/);
    assert.match(metrics, /loupe_event_append_duration_seconds_count\{type="SpansIngested"\} 1/);
    assert.match(metrics, /loupe_http_request_duration_seconds_count\{method="POST",route="\/v1\/traces",status="503"\} 1/);
    assert.match(metrics, /process_resident_memory_bytes \d+/);

    // And once the projections catch up, exports are accepted again
    await server.runner.start();
    const accepted = await until('ingest to reopen', async () => {
      const response = await postSpan(server);
      return response.status === 200 ? response : null;
    });
    assert.is(accepted.status, 200);
    assert.is(await grpcExport(server), null);
    await until('/readyz to show the tracing read model caught up', async () => {
      const tracing = (await readiness(server)).projections.find((p) => p.name === 'tracing');
      return tracing && tracing.seconds < 1.2 ? tracing : null;
    });
  } finally {
    await server.close();
  }
});

test('an export arriving while the read models trail is held before its body is read, and accepted once they catch up', async () => {
  const server = await startTestServer({ env: { SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS: '1' } });
  try {
    // Given the tracing read model trails past the bound
    await server.runner.stop();
    assert.is((await postSpan(server)).status, 200);
    await until('the tracing lag to pass 1 s', async () => {
      const tracing = (await readiness(server)).projections.find((p) => p.name === 'tracing');
      return tracing && tracing.seconds > 1.2 ? tracing : null;
    });

    // When exports arrive over both transports, and the read models catch up while they wait
    const started = Date.now();
    const answer = postSpan(server);
    const grpcAnswer = grpcExport(server);
    await new Promise((r) => setTimeout(r, 300));
    await server.runner.start();

    // Then both are accepted (held, not refused), after they waited
    const response = await answer;
    assert.is(response.status, 200);
    assert.is(await grpcAnswer, null);
    assert.ok(Date.now() - started >= 300, 'they waited for the read models');
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    assert.match(metrics, /loupe_ingest_held_requests_total\{reason="projection_lag"\} 2/);
    assert.match(metrics, /loupe_ingest_accepted_spans_total\{transport="grpc"\} 1/);
    assert.not.match(metrics, /loupe_ingest_refused_requests_total\{reason="projection_lag"\}/);
  } finally {
    await server.close();
  }
});

test('with auth on, /metrics needs a credential like any read route', async () => {
  const server = await startTestServer({ env: { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: 'metrics-test-secret-0123456789abcdef' } });
  try {
    assert.is((await fetch(`${server.baseUrl}/metrics`)).status, 401);
    assert.is((await fetch(`${server.baseUrl}/healthz`)).status, 200);
  } finally {
    await server.close();
  }
});

test('the gate closes a little before the bound (what is in flight still arrives), and opens again below it', () => {
  let lag = 0;
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 1 << 20, retryAfterSeconds: 1 });
  const gated = gateBudgetOnLag(budget, { maxLagSeconds: 20, lagSeconds: () => lag });
  lag = 16.9;
  const open = gated.tryAcquire(10);
  assert.ok(open !== null, 'below 85 % of the bound: admitted');
  open!.release();
  lag = 17.1;
  assert.is(gated.tryAcquire(10), null, 'past 85 % of the bound (17 of 20 s): refused');
  lag = 16;
  assert.ok(gated.tryAcquire(10) !== null);
});

test('the gate: a lease opened while the lag is past the bound can neither grow nor claim a slot; 0 turns it off', () => {
  let lag = 0;
  const changes: boolean[] = [];
  let refusals = 0;
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 1 << 20, retryAfterSeconds: 1 });
  const gated = gateBudgetOnLag(budget, {
    maxLagSeconds: 20,
    lagSeconds: () => lag,
    onRefused: () => refusals++,
    onChange: (closed) => changes.push(closed),
  });
  const early = gated.open();
  assert.ok(early.grow(10) && early.claimSlot());
  lag = 25;
  const late = gated.open();
  assert.not.ok(late.grow(10));
  assert.not.ok(late.claimSlot());
  assert.is(gated.tryAcquire(10), null);
  assert.is(gated.retryAfterSeconds, 2);
  assert.is(refusals, 2, 'once per refused request');
  // A request admitted before the gate closed finishes normally.
  assert.ok(early.grow(20));
  early.release();
  late.release();
  assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
  lag = 3;
  assert.ok(gated.tryAcquire(10) !== null);
  assert.equal(changes, [true, false]);

  const off = gateBudgetOnLag(budget, { maxLagSeconds: 0, lagSeconds: () => 1e9 });
  assert.ok(off.open().claimSlot());
});

const settled = async (promise: Promise<void>, ms = 80): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

test('held requests: straight on when the gate is open; otherwise they wait, go on oldest first once it opens', async () => {
  let lag = 0;
  const order: string[] = [];
  let heldCount = 0;
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 1 << 20, retryAfterSeconds: 1 });
  const gated = gateBudgetOnLag(budget, { maxLagSeconds: 20, lagSeconds: () => lag, holdMs: 5000, onHeld: () => heldCount++ });
  assert.ok(await settled(gated.whenOpen!(), 5), 'open, nobody waiting: at once');
  assert.is(heldCount, 0);

  lag = 25;
  const first = gated.whenOpen!().then(() => void order.push('first'));
  const second = gated.whenOpen!().then(() => void order.push('second'));
  assert.not.ok(await settled(Promise.all([first, second]).then(() => undefined)), 'closed: both wait');
  assert.is(heldCount, 2);

  lag = 3;
  await Promise.all([first, second]);
  assert.equal(order, ['first', 'second']);
  const lease = gated.open();
  assert.ok(lease.grow(10) && lease.claimSlot(), 'a request let through is admitted');
  lease.release();
});

test('held requests: past the hold they go on and are refused; past MAX_HELD waiting, at once', async () => {
  const lag = 25;
  let refusals = 0;
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 1 << 20, retryAfterSeconds: 1 });
  const gated = gateBudgetOnLag(budget, { maxLagSeconds: 20, lagSeconds: () => lag, holdMs: 150, onRefused: () => refusals++ });
  const waiting = Array.from({ length: MAX_HELD }, () => gated.whenOpen!());
  assert.ok(await settled(gated.whenOpen!(), 20), 'one more than MAX_HELD goes on at once');
  assert.not.ok(await settled(waiting[0]!, 50), 'the first MAX_HELD wait');
  await Promise.all(waiting);
  const late = gated.open();
  assert.not.ok(late.claimSlot(), 'still closed after the hold: refused');
  assert.is(refusals, 1);
  late.release();

  const noHold = gateBudgetOnLag(budget, { maxLagSeconds: 20, lagSeconds: () => lag, holdMs: 0 });
  assert.ok(await settled(noHold.whenOpen!(), 5), 'holdMs 0: refused at once');
});

test('the gate closes at 85 % of the bound, or two seconds before it when that is earlier, but not before half of it', () => {
  assert.is(closingLag(30), 25.5);
  assert.is(closingLag(5), 3);
  assert.is(closingLag(3), 1.5);
  assert.is(closingLag(1), 0.5);
});

test.run();
