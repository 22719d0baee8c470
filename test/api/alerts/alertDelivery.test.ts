import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertRule } from '../../../domain/alerts/alertRule.ts';
import { alertStream } from '../../../domain/alerts/alertStream.ts';
import { callJson, eventually, seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { freshDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { type ReceivedHook, startWebhookReceiver } from '../../peers/webhookReceiver.ts';

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
type Ctx = { server: TestServer; hooks: Receiver; slack: Receiver };
const test = suite<Ctx>('alerts fire, notify once, resolve', {} as Ctx);

const SECRET = 'whsec-0123456789-abcdef';
test.before(async (ctx) => {
  // The webhook's first attempt of every delivery gets a 500: the retry must bring it (`/gone` always fails).
  ctx.hooks = await startWebhookReceiver((index, path) => (index === 0 || path === '/gone' ? 500 : 200));
  ctx.slack = await startWebhookReceiver();
  ctx.server = await startTestServer({ env: { SERVICE_ALERTS_ALLOWED_URLS: `${ctx.hooks.url}/,${ctx.slack.url}/` } });
  for (const name of ['shop', 'search', 'gone']) assert.is((await callJson(ctx.server, 'POST', '/v1/projects', { name })).status, 200);
});
test.after(async (ctx) => {
  await ctx.server.close();
  await ctx.hooks.close();
  await ctx.slack.close();
});

const nanosAt = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString();
/** One single-span trace that started at `startMs` and took `ms`. */
const trace = (startMs: number, ms: number, error = false) =>
  spanRecord({
    traceId: newTraceId(),
    status: { code: error ? 'ERROR' : 'OK', message: '' },
    startTimeUnixNano: nanosAt(startMs),
    endTimeUnixNano: nanosAt(startMs + ms),
  });

const signed = (hook: ReceivedHook): boolean => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(hook.raw).digest('hex')}`);
  const got = Buffer.from(String(hook.headers['x-loupe-signature'] ?? ''));
  return got.length === expected.length && timingSafeEqual(got, expected);
};
const delivered = (hooks: readonly ReceivedHook[]) => hooks.filter((h) => h.status === 200);
const states = (hooks: readonly ReceivedHook[]) => delivered(hooks).map((h) => JSON.parse(h.raw).state as string);
const alertOf = async (ctx: Ctx, project: string, id: string) =>
  (await callJson(ctx.server, 'GET', `/v1/projects/${project}/alerts/${id}`)).body.data;

test('an error-rate rule (> 20 % over 20 s, every 5 s) fires on a burst of 50 % errors, once, through a 500; resolves when the errors leave the window', async (ctx) => {
  const created = await callJson(ctx.server, 'POST', '/v1/projects/shop/alerts', {
    name: 'Errors up',
    metric: 'error_rate',
    window_seconds: 20,
    evaluation_interval_seconds: 5,
    condition: { op: '>', threshold: 0.2 },
    destinations: [
      { type: 'webhook', url: `${ctx.hooks.url}/errors`, secret: SECRET },
      { type: 'slack', url: `${ctx.slack.url}/services/T0/B0/errors` },
    ],
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  // The same rule as a log from before Slack URLs were sealed holds it: its URL in plaintext in the event.
  const oldRule: AlertRule = {
    name: 'Errors up, old',
    metric: 'error_rate',
    annotationName: null,
    annotationLabel: null,
    filter: '',
    windowSeconds: 20,
    evaluationIntervalSeconds: 5,
    condition: { kind: 'threshold', op: '>', threshold: 0.2 },
    noData: 'OK',
    destinations: [{ type: 'slack', url: `${ctx.slack.url}/services/T0/B0/old` }],
  };
  const projectId = String(await ctx.server.pool.oneFirst(sql.unsafe`SELECT project_id::text FROM projects WHERE name = 'shop'`));
  const oldId = randomUUID();
  await ctx.server.store.appendToStream(
    alertStream(oldId),
    [
      {
        type: 'AlertRuleCreated',
        data: { alertId: oldId, projectId, rule: oldRule },
        metadata: { actor: 'system', requestId: null, time: new Date().toISOString(), causation: 'test' },
      },
    ],
    'no_stream',
  );

  // The burst: ten traces, five with an error, started 8 s ago (they leave the 20 s window 12 s from now).
  const burstAt = Date.now();
  await seed(
    ctx.server,
    'shop',
    Array.from({ length: 10 }, (_, i) => trace(burstAt - 8000, 50, i % 2 === 0)),
  );

  const firing = await eventually(
    async () => delivered(ctx.hooks.at('/errors')),
    (hooks) => hooks.length >= 1,
    30_000,
  );
  assert.ok(Date.now() - burstAt < 30_000, `fired ${Date.now() - burstAt} ms after the burst`);
  const attempts = ctx.hooks.at('/errors');
  assert.equal(
    attempts.map((h) => h.status),
    [500, 200],
    'the first attempt got a 500, the retry delivered',
  );
  assert.is(attempts[0]!.headers['x-loupe-delivery'], attempts[1]!.headers['x-loupe-delivery'], 'one delivery id across attempts');
  assert.ok(signed(firing[0]!), 'the signature verifies');
  const body = JSON.parse(firing[0]!.raw);
  assert.equal(
    { ...body, window_start: typeof body.window_start, window_end: typeof body.window_end, link: typeof body.link },
    {
      alert_id: id,
      name: 'Errors up',
      project: 'shop',
      state: 'FIRING',
      metric: 'error_rate',
      value: 0.5,
      op: '>',
      threshold: 0.2,
      window_start: 'string',
      window_end: 'string',
      link: 'string',
    },
  );
  assert.match(body.link, /^http:\/\/127\.0\.0\.1:\d+\/projects\/[A-Za-z0-9=]+\/metrics$/);
  assert.is(Date.parse(body.window_end) - Date.parse(body.window_start), 20_000);
  const slack = await eventually(
    async () => ctx.slack.at('/services/T0/B0/errors'),
    (m) => m.length >= 1,
    10_000,
  );
  const text = JSON.parse(slack[0]!.raw).text as string;
  assert.ok(text.includes('Errors up') && text.includes('shop') && text.includes('0.5'), text);
  assert.is(slack[0]!.headers['x-loupe-signature'], undefined);
  // The old rule's plaintext URL still receives; no delivery row holds a Slack URL's path in the clear.
  const old = await eventually(
    async () => ctx.slack.at('/services/T0/B0/old'),
    (m) => m.length >= 1,
    10_000,
  );
  assert.match(JSON.parse(old[0]!.raw).text, /Errors up, old/);
  const rows = await ctx.server.pool.anyFirst(
    sql.unsafe`SELECT url || ' ' || coalesce(secret::text, '') FROM alert_deliveries WHERE kind = 'slack'`,
  );
  assert.ok(rows.length >= 2, JSON.stringify(rows));
  assert.not.ok(JSON.stringify(rows).includes('/services/'), JSON.stringify(rows));

  // Still above at the next evaluation: no second FIRING.
  const firedAt = (await alertOf(ctx, 'shop', id)).last_evaluated_at as string;
  const again = await eventually(
    () => alertOf(ctx, 'shop', id),
    (a) => a.last_evaluated_at !== firedAt,
    15_000,
  );
  if (again.state === 'FIRING') assert.equal(states(ctx.hooks.at('/errors')), ['FIRING']);

  // The errors leave the window: one RESOLVED, and the rule is OK.
  await eventually(
    async () => states(ctx.hooks.at('/errors')),
    (s) => s.includes('RESOLVED'),
    30_000,
  );
  assert.equal(states(ctx.hooks.at('/errors')), ['FIRING', 'RESOLVED']);
  const resolved = delivered(ctx.hooks.at('/errors'))[1]!;
  assert.ok(signed(resolved));
  assert.is(JSON.parse(resolved.raw).value, null, 'the window holds no traces at all');
  assert.is((await alertOf(ctx, 'shop', id)).state, 'OK');
  await eventually(
    async () => ctx.slack.at('/services/T0/B0/errors'),
    (m) => m.length >= 2,
    10_000,
  );
  assert.match(JSON.parse(ctx.slack.at('/services/T0/B0/errors')[1]!.raw).text, /RESOLVED/);

  // The history shows both transitions and every attempt.
  const history = (await callJson(ctx.server, 'GET', `/v1/projects/shop/alerts/${id}/history`)).body.data;
  const [last, before] = history.transitions.map((t: { from: string; to: string }) => `${t.from}→${t.to}`);
  assert.is(last, 'FIRING→OK');
  assert.match(before, /→FIRING$/);
  const firingDelivery = history.deliveries.find(
    (d: { type: string; notification: string }) => d.type === 'webhook' && d.notification === 'FIRING',
  );
  assert.equal(
    firingDelivery.attempts.map((a: { status_code: number }) => a.status_code),
    [500, 200],
  );
  assert.is(firingDelivery.status, 'delivered');
});

test('a regression rule (p95 up more than 100 % against the previous 60 s) fires when p95 goes from 100 ms to 1 s, with value and baseline', async (ctx) => {
  const now = Date.now();
  // The baseline window is [now - 70 s, now - 10 s): 100 ms traces. The evaluated window [now - 10 s, now): 1 s traces.
  await seed(ctx.server, 'search', [
    ...Array.from({ length: 20 }, (_, i) => trace(now - 65_000 + i * 2500, 100)),
    ...Array.from({ length: 10 }, () => trace(now - 4000, 1000)),
  ]);
  const created = await callJson(ctx.server, 'POST', '/v1/projects/search/alerts', {
    name: 'Slower',
    metric: 'latency_p95',
    window_seconds: 10,
    evaluation_interval_seconds: 5,
    condition: { baseline_window_seconds: 60, change_percent: 100, direction: 'up' },
    destinations: [{ type: 'webhook', url: `${ctx.hooks.url}/latency`, secret: SECRET }],
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const hooks = await eventually(
    async () => delivered(ctx.hooks.at('/latency')),
    (h) => h.length >= 1,
    30_000,
  );
  const body = JSON.parse(hooks[0]!.raw);
  assert.ok(signed(hooks[0]!));
  assert.is(body.state, 'FIRING');
  assert.ok(Math.abs(body.value - 1000) < 1, `value ${body.value}`);
  assert.ok(Math.abs(body.baseline - 100) < 1, `baseline ${body.baseline}`);
  assert.ok(body.change_percent > 800, `change ${body.change_percent}`);
  assert.is(body.direction, 'up');
});

test('a deleted rule sends nothing more: its pending retries are dropped', async (ctx) => {
  {
    const created = await callJson(ctx.server, 'POST', '/v1/projects/gone/alerts', {
      name: 'Any traffic',
      metric: 'trace_count',
      window_seconds: 10,
      evaluation_interval_seconds: 5,
      condition: { op: '>', threshold: 0 },
      destinations: [{ type: 'webhook', url: `${ctx.hooks.url}/gone`, secret: SECRET }],
    });
    assert.is(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    await seed(ctx.server, 'gone', [trace(Date.now() - 1000, 10)]);
    // The first attempt gets a 500; so would every retry.
    await eventually(
      async () => ctx.hooks.at('/gone'),
      (h) => h.length >= 1,
      30_000,
    );
    assert.is((await callJson(ctx.server, 'DELETE', `/v1/projects/gone/alerts/${id}`)).status, 204);
    const sent = ctx.hooks.at('/gone').length;
    // The retry was due 1 s after the first attempt: give it three.
    await new Promise((r) => setTimeout(r, 3000));
    assert.is(ctx.hooks.at('/gone').length, sent, 'nothing was sent after the deletion');
  }
});

test('a restart between attempts: the next server carries the delivery on, and the webhook gets one FIRING', async () => {
  // Fails twice, then takes it: the first server makes the first attempt, the next one the rest.
  const receiver = await startWebhookReceiver((index) => (index < 2 ? 500 : 200));
  const database = await freshDatabase();
  const env = { SERVICE_ALERTS_ALLOWED_URLS: `${receiver.url}/` };
  let server = await startTestServer({ database, env });
  try {
    assert.is((await callJson(server, 'POST', '/v1/projects', { name: 'restart' })).status, 200);
    const created = await callJson(server, 'POST', '/v1/projects/restart/alerts', {
      name: 'Any traffic',
      metric: 'trace_count',
      // Long enough to stay FIRING through the restart, however slow the machine.
      window_seconds: 120,
      evaluation_interval_seconds: 5,
      condition: { op: '>', threshold: 0 },
      destinations: [{ type: 'webhook', url: `${receiver.url}/restart`, secret: SECRET }],
    });
    assert.is(created.status, 201, JSON.stringify(created.body));
    await seed(server, 'restart', [trace(Date.now() - 1000, 10)]);
    await eventually(
      async () => receiver.received,
      (r) => r.length >= 1,
      30_000,
    );
    await server.close();
    server = await startTestServer({ database, env });
    const delivered = await eventually(
      async () => receiver.received.filter((r) => r.status === 200),
      (r) => r.length >= 1,
      30_000,
    );
    assert.is(delivered.length, 1);
    assert.ok(signed(delivered[0]!));
    assert.is(JSON.parse(delivered[0]!.raw).state, 'FIRING');
    assert.is(new Set(receiver.received.map((r) => r.headers['x-loupe-delivery'])).size, 1, 'one delivery, every attempt');
    const history = (await callJson(server, 'GET', `/v1/projects/restart/alerts/${created.body.data.id}/history`)).body.data;
    assert.is(history.deliveries.length, 1);
    assert.equal(
      history.deliveries[0].attempts.map((a: { status_code: number }) => a.status_code),
      [500, 500, 200],
    );
  } finally {
    await server.close();
    await database.close();
    await receiver.close();
  }
});

test.run();
