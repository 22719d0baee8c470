import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKurrentEventStore } from '../../domain/eventstore/kurrentEventStore.ts';
import { START } from '../../domain/eventstore/types.ts';
import { loadConfig } from '../../ops/config.ts';
import { copyEventLog } from '../../ops/copyEventLog.ts';
import { openConfiguredDatabase } from '../../ops/database/openConfiguredDatabase.ts';
import { readSeals } from '../../projections/audit/sealStore.ts';
import { startEventStoreDb, type EventStoreDbStandIn } from '../peers/eventStoreDb.ts';
import { authEnv, createUser } from '../support/authClient.ts';
import { cliDatabase } from '../support/cliDatabase.ts';
import { runCli } from '../support/cliProcess.ts';
import { TEST_MAX_APPEND_SIZE } from '../support/eventStoreBackend.ts';
import { eventually, seed } from '../support/restClient.ts';
import { newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { startTestServer } from '../support/testServer.ts';

/**
 * Seals and `loupe audit verify` with the log in EventStoreDB (the stand-in) and the seals in the
 * SQL database: a server's log verifies, so does its copy (made as `loupe events copy` does, sealed
 * by a server on it), so does it after an erasure (naming the record), and an event whose data is
 * changed in EventStoreDB does not.
 */
const test = suite('audit verify with the log in EventStoreDB');

/** A server on this log and SQL database writes users and spans, and everything gets sealed. */
const sealedBy = async (env: Record<string, string>, standIn: EventStoreDbStandIn, write: boolean) => {
  const config = loadConfig({ SERVICE_WORKING_DIR: env.SERVICE_WORKING_DIR ?? '/nonexistent', ...env });
  const database = await openConfiguredDatabase(config);
  const server = await startTestServer({ env, database: { ...database, eventStoreUrl: standIn.url } });
  const kurrent = createKurrentEventStore(standIn.url);
  try {
    if (write) {
      const admin = { bearer: env.SERVICE_ADMIN_SECRET! };
      await createUser(server, admin, { email: 'ada@example.com', username: 'ada', role: 'MEMBER', password: 'a-password-1' });
      await seed(server, 'audited', [spanRecord({ traceId: newTraceId(), name: 'llm call' })]);
    }
    const events = (await kurrent.store.readAll(START, 100_000)).length;
    assert.ok(events > 3);
    await eventually(
      async () => (await readSeals(database.pool, START, 100_000)).length,
      (n) => n === events,
    );
    return events;
  } finally {
    await kurrent.close();
    await server.close();
    await database.close();
  }
};

test('a log written in EventStoreDB verifies, so does its copy and the log after an erasure; changed data in EventStoreDB is named', async () => {
  const original = await startEventStoreDb({ maxAppendSize: TEST_MAX_APPEND_SIZE });
  const copy = await startEventStoreDb({ maxAppendSize: TEST_MAX_APPEND_SIZE });
  const place = await cliDatabase();
  const copyPlace = await cliDatabase();
  try {
    const secrets = authEnv();
    const env = { ...place.env, ...secrets, SERVICE_EVENTSTORE_URL: original.url };
    const events = await sealedBy(env, original, true);

    const verified = await runCli(env, ['audit', 'verify']);
    assert.is(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`^intact: ${events} sealed events verified \\(head \\d+:\\d+ seal [0-9a-f]{64}`));

    // Copied in-process (the command itself is run in eventsCopy.test.ts): one child process less.
    const from = createKurrentEventStore(original.url);
    const to = createKurrentEventStore(copy.url);
    try {
      assert.is((await copyEventLog(from.store, to.store)).copied, events);
    } finally {
      await from.close();
      await to.close();
    }
    const copyEnv = { ...copyPlace.env, ...secrets, SERVICE_EVENTSTORE_URL: copy.url };
    await sealedBy(copyEnv, copy, false);
    const copyVerified = await runCli(copyEnv, ['audit', 'verify']);
    assert.is(copyVerified.code, 0, copyVerified.stdout + copyVerified.stderr);
    assert.match(copyVerified.stdout, new RegExp(`^intact: ${events} sealed events verified`));

    // An erasure through the port: the span batch's content goes, the chain still verifies and
    // names the record that erased it.
    const eraser = createKurrentEventStore(original.url);
    try {
      const batch = (await eraser.store.readAll(START, 100_000)).find((e) => e.type === 'SpansIngested')!;
      const removed = await eraser.store.removeContent({
        record: {
          type: 'ContentRemoved',
          data: { kind: 'erasure' },
          metadata: { actor: 'test', requestId: null, time: new Date().toISOString(), causation: null },
        },
        eventIds: [batch.id],
        rewrite: () => null,
      });
      assert.ok(removed);
      const erased = await runCli(env, ['audit', 'verify']);
      assert.is(erased.code, 0, erased.stdout + erased.stderr);
      assert.match(erased.stdout, new RegExp(`1 event\\(s\\) erased by the removal record at position ${removed.position.seq}`));
    } finally {
      await eraser.close();
    }

    // Someone with access to the EventStoreDB node's files changes a span batch in place.
    const record = original.log.records().find((r) => r.type === 'UserCreated')!;
    (record as { data: Buffer }).data = Buffer.from(JSON.stringify({ ...JSON.parse(record.data.toString('utf8')), tampered: true }));
    const tampered = await runCli(env, ['audit', 'verify']);
    assert.is(tampered.code, 1, tampered.stdout + tampered.stderr);
    assert.match(tampered.stdout, /TAMPERED: data changed at position \d+:\d+/);
  } finally {
    await original.close();
    await copy.close();
    await place.cleanup();
    await copyPlace.cleanup();
  }
});

test.run();
