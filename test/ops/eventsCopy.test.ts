import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKurrentEventStore } from '../../domain/eventstore/kurrentEventStore.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { START } from '../../domain/eventstore/types.ts';
import { copyEventLog, TargetNotEmptyError } from '../../ops/copyEventLog.ts';
import { startEventStoreDb } from '../peers/eventStoreDb.ts';
import { runCli } from '../support/cliProcess.ts';
import { freshDatabase, freshMigratedDatabase, serverUrl } from '../support/database.ts';
import { TEST_MAX_APPEND_SIZE } from '../support/eventStoreBackend.ts';
import { callJson, seed } from '../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * Moving a log: a server's log copied into EventStoreDB (the stand-in) and back into PostgreSQL;
 * a server started on each copy, with empty read models, rebuilds the same ones.
 */
const test = suite('loupe events copy');

/** What a user sees of the read models: projects, and each project's spans. */
const snapshot = async (server: TestServer) => {
  const projects = await callJson(server, 'GET', '/v1/projects');
  assert.is(projects.status, 200, projects.text);
  const names = (projects.body.data as Array<{ name: string }>).map((p) => p.name).sort();
  const spans: Record<string, unknown> = {};
  for (const name of names) {
    const r = await callJson(server, 'GET', `/v1/projects/${encodeURIComponent(name)}/spans?limit=1000`);
    assert.is(r.status, 200, r.text);
    spans[name] = (r.body.data as Array<{ id: string; name: string; context: unknown; attributes: unknown }>)
      .map((s) => ({ id: s.id, name: s.name, context: s.context, attributes: s.attributes }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }
  return { names, spans, projects: projects.body.data };
};

const settled = async (server: TestServer) => server.runner.waitFor(await server.store.headPosition(), 60_000);

test('a log copied into EventStoreDB and back rebuilds the same read models, ids and all; a second copy into the same target is refused', async () => {
  const source = await freshDatabase();
  const standIn = await startEventStoreDb({ maxAppendSize: TEST_MAX_APPEND_SIZE });
  const fresh = await freshDatabase();
  const back = await freshMigratedDatabase();
  const servers: TestServer[] = [];
  try {
    const a = await startTestServer({ database: source });
    servers.push(a);
    const created = await callJson(a, 'POST', '/v1/projects', { name: 'moved', description: 'copied with its log' });
    assert.is(created.status, 200, created.text);
    const trace = newTraceId();
    await seed(a, 'moved', [
      spanRecord({ traceId: trace, name: 'root', attributes: attrs({ 'input.value': 'hello' }) }),
      spanRecord({ traceId: trace, name: 'child', attributes: attrs({ 'llm.model_name': 'gpt-4o' }) }),
    ]);
    await seed(a, 'other', [spanRecord({ traceId: newTraceId(), name: 'elsewhere' })]);
    await settled(a);
    const before = await snapshot(a);
    const sourceEvents = await a.store.readAll(START, 100_000);

    const kurrent = createKurrentEventStore(standIn.url);
    try {
      const progress: number[] = [];
      const copied = await copyEventLog(a.store, kurrent.store, (n) => progress.push(n));
      assert.is(copied.copied, sourceEvents.length);
      assert.ok(copied.appends <= copied.copied);
      assert.is(progress.at(-1), sourceEvents.length);
      const inEsdb = await kurrent.store.readAll(START, 100_000);
      assert.equal(
        inEsdb.map((e) => [e.id, e.stream, e.revision, e.type, e.schemaVersion]),
        sourceEvents.map((e) => [e.id, e.stream, e.revision, e.type, e.schemaVersion]),
      );
      assert.equal(
        inEsdb.map((e) => [e.data, e.metadata]),
        sourceEvents.map((e) => [e.data, e.metadata]),
      );
      try {
        await copyEventLog(a.store, kurrent.store);
        assert.unreachable('a second copy into a log that holds events must be refused');
      } catch (error) {
        assert.instance(error, TargetNotEmptyError);
      }

      const b = await startTestServer({ database: { ...fresh, eventStoreUrl: standIn.url } });
      servers.push(b);
      await settled(b);
      assert.equal(await snapshot(b), before, 'rebuilt from the EventStoreDB copy');

      const postgresBack = createPostgresEventStore(back.pool);
      assert.is((await copyEventLog(kurrent.store, postgresBack)).copied, sourceEvents.length);
      const c = await startTestServer({ database: { ...back, eventStoreUrl: undefined } });
      servers.push(c);
      await settled(c);
      assert.equal(await snapshot(c), before, 'rebuilt from the copy back into PostgreSQL');
      assert.equal(
        (await c.store.readAll(START, 100_000)).map((e) => e.id),
        sourceEvents.map((e) => e.id),
      );
    } finally {
      await kurrent.close();
    }
  } finally {
    for (const s of servers) await s.close().catch(() => undefined);
    await source.close();
    await fresh.close();
    await back.close();
    await standIn.close();
  }
});

test('the command: loupe events copy --to kurrentdb://… from a PostgreSQL log, with its summary; a bad --to is refused', async () => {
  if (!serverUrl()) {
    console.log('  (the command is run on PostgreSQL only: an in-memory PGlite cannot be shared with a child process)');
    return;
  }
  const database = await freshMigratedDatabase();
  const standIn = await startEventStoreDb({ maxAppendSize: TEST_MAX_APPEND_SIZE });
  try {
    const store = createPostgresEventStore(database.pool);
    const meta = { actor: 'test', requestId: null, time: new Date().toISOString(), causation: null };
    for (let i = 0; i < 5; i++) await store.appendToStream(`s-${i % 2}`, [{ type: 'Noted', data: { i }, metadata: meta }], 'any');
    const env = { SERVICE_SQL_DATABASE_URL: database.url! };
    const refused = await runCli(env, ['events', 'copy', '--to', 'http://example.com']);
    assert.is(refused.code, 2);
    assert.match(refused.stderr, /--to must be an EventStoreDB connection string/);
    const url = standIn.url.replace('esdb:', 'kurrentdb:');
    const done = await runCli(env, ['events', 'copy', '--to', url]);
    assert.is(done.code, 0, done.stderr);
    assert.match(done.stdout, new RegExp(`copied 5 events in 5 appends to kurrentdb://127\\.0\\.0\\.1:${standIn.port}\\?tls=false`));
    const again = await runCli(env, ['events', 'copy', '--to', url]);
    assert.is(again.code, 1);
    assert.match(again.stderr, /already holds events/);
  } finally {
    await database.close();
    await standIn.close();
  }
});

test.run();
