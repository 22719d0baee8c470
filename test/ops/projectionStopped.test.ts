import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, eventually } from '../support/restClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The whole server with its real read models, one of which is made to fail on purpose: the
 * `projects` table refuses one name (a CHECK constraint added behind the projector's back), so
 * creating that project is an event the tracing read model genuinely cannot apply. Readiness
 * names the event, the waits that need tracing answer 503 at once, everything else keeps working,
 * and once the cause is gone the read model resumes on its own.
 */
const test = suite<{ server: TestServer }>('server with a stopped read model', {} as { server: TestServer });
test.before.each(async (ctx) => {
  ctx.server = await startTestServer();
  await ctx.server.pool.query(sql.unsafe`ALTER TABLE projects ADD CONSTRAINT refuse_poison CHECK (name <> 'poison-me')`);
});
test.after.each(async (ctx) => {
  await ctx.server.close();
});

test('given a project the tracing read model cannot store, readiness names the event, tracing waits fail fast, other writes work, and a fix resumes it', async ({
  server,
}) => {
  const started = Date.now();
  const poisoned = await callJson(server, 'POST', '/v1/projects', { name: 'poison-me' });
  assert.is(poisoned.status, 503, poisoned.text);
  assert.is(poisoned.body.code, 'projection_stopped');
  assert.match(poisoned.body.detail, /"tracing" read model is stopped at event \d+:\d+ \(ProjectCreated\)/);
  assert.is(poisoned.headers.get('retry-after'), '30');
  assert.ok(Date.now() - started < 4000, `answered without waiting for a timeout (${Date.now() - started} ms)`);

  const ready = await callJson(server, 'GET', '/readyz');
  assert.is(ready.status, 200, 'one stopped read model does not take the server out of rotation');
  assert.is(ready.body.status, 'degraded');
  assert.is(ready.body.stoppedProjections.length, 1);
  const stop = ready.body.stoppedProjections[0];
  assert.is(stop.projection, 'tracing');
  assert.is(stop.event.type, 'ProjectCreated');
  assert.match(stop.event.position, /^\d+:\d+$/);
  assert.match(stop.error, /refuse_poison/);
  assert.match(stop.error, /SQLSTATE 23514/);
  assert.match(ready.body.degraded[0], /^tracing stopped at event \d+:\d+ \(ProjectCreated in stream /);
  assert.ok(server.logLines.filter((l) => l.includes('projection stopped')).length === 1, 'logged once');
  // What an alert uses (README › Operations): the gauge per read model, sampled every second.
  const stoppedGauge = async (projection: string) => {
    const text = (await callJson(server, 'GET', '/metrics')).text;
    return new RegExp(`^loupe_projection_stopped\\{projection="${projection}"\\} (\\d+)$`, 'm').exec(text)?.[1];
  };
  await eventually(
    () => stoppedGauge('tracing'),
    (v) => v === '1',
    10_000,
  );
  assert.is(await stoppedGauge('tracing'), '1', 'loupe_projection_stopped{projection="tracing"} 1');
  assert.is(await stoppedGauge('datasets'), '0', 'the others 0');

  // Writes that need other read models still answer at once.
  const secrets = await callJson(server, 'PUT', '/v1/secrets', { secrets: [{ key: 'K', value: 'v' }] });
  assert.ok(secrets.status < 300, `secrets still work: ${secrets.status} ${secrets.text}`);

  // Ingest still acknowledges spans (they wait in the log for the tracing read model).
  const otlp = await fetch(server.otlpHttpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'openinference.project.name', value: { stringValue: 'fine' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'after',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000001000000000',
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  assert.is(otlp.status, 200);

  // The fix: the cause goes away; the runner resumes by itself (retried now rather than in 30 s).
  await server.pool.query(sql.unsafe`ALTER TABLE projects DROP CONSTRAINT refuse_poison`);
  server.runner.retry('tracing');
  const back = await eventually(
    () => callJson(server, 'GET', '/readyz'),
    (r) => r.body.status === 'ok',
    20_000,
  );
  assert.equal(back.body.stoppedProjections, []);
  await eventually(
    () => stoppedGauge('tracing'),
    (v) => v === '0',
    10_000,
  );
  const projects = await eventually(
    () => callJson(server, 'GET', '/v1/projects'),
    (r) => r.body.data.length === 3,
    20_000,
  );
  assert.equal(projects.body.data.map((p: { name: string }) => p.name).sort(), ['default', 'fine', 'poison-me']);
});

test('given a read model stopped before a restart, the server starts, reports it, and keeps ingesting', async ({ server }) => {
  const poisoned = await callJson(server, 'POST', '/v1/projects', { name: 'poison-me' });
  assert.is(poisoned.body.code, 'projection_stopped');
  const database = server.database;
  await server.stop();

  const again = await startTestServer({ database });
  try {
    const ready = await callJson(again, 'GET', '/readyz');
    assert.is(ready.status, 200);
    assert.is(ready.body.status, 'degraded');
    assert.is(ready.body.stoppedProjections[0].projection, 'tracing');
    assert.ok(
      again.logLines.some((l) => l.includes('trying again: tracing stopped at event')),
      'the start says it is trying again',
    );
    assert.ok(!again.logLines.some((l) => l.includes('projection stopped:')), 'and does not log the same stop again');
    const created = await callJson(again, 'PUT', '/v1/secrets', { secrets: [{ key: 'K2', value: 'v' }] });
    assert.ok(created.status < 300, created.text);
  } finally {
    await again.stop();
  }
});

test.run();
