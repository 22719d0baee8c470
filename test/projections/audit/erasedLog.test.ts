import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FindingKind, VerifyReport } from '../../../domain/audit/verifyChain.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { START, type EventStore, type Position } from '../../../domain/eventstore/types.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { appendSampleEvents, sealEverything, verify, verifyTampered } from './auditFixture.ts';

const test = suite('audit verify over a log with removals (retention, erasure)');

let db: TestDatabase;
let firstRecord: Position;
let secondRecord: Position;

const idsAt = async (store: EventStore, seqs: readonly bigint[]) =>
  (await store.readAll(START, 1000)).filter((e) => seqs.includes(e.position.seq)).map((e) => e.id);

const remove = async (store: EventStore, eventIds: readonly string[], kind: string) => {
  const result = await store.removeContent({
    record: {
      type: 'ContentRemoved',
      data: { kind },
      metadata: { actor: 'system', requestId: null, time: new Date().toISOString(), causation: null },
    },
    eventIds,
    rewrite: () => null,
  });
  return result!.position;
};

test.before(async () => {
  db = await freshMigratedDatabase();
  const store = createPostgresEventStore(db.pool);
  await appendSampleEvents(store, 20);
  await sealEverything(db.pool);
  // Erased after they were sealed (retention of old events)...
  firstRecord = await remove(store, await idsAt(store, [5n, 6n]), 'retention');
  // ...and before (an erasure right after the append, faster than the sealer).
  await appendSampleEvents(store, 3);
  secondRecord = await remove(store, await idsAt(store, [23n]), 'erasure');
  await sealEverything(db.pool);
});
test.after(async () => db.close());

const expectFinding = (report: VerifyReport, kind: FindingKind, seq: bigint) => {
  assert.ok(report.finding, `expected ${kind}, the log verified`);
  assert.is(report.finding.kind, kind, report.finding.detail);
  assert.is(report.finding.position?.seq, seq);
};

test('erased events keep verifying and are reported as erased by their removal record', async () => {
  const report = await verify(db.pool);
  assert.is(report.finding, null, report.finding?.detail);
  assert.equal(
    [...report.erased.entries()],
    [
      [firstRecord.seq, 2],
      [secondRecord.seq, 1],
    ],
  );
});

test('content replaced by hand, its original hash kept but no record named', async () => {
  expectFinding(
    await verifyTampered(db.pool, ['UPDATE events SET erased_by = NULL WHERE global_position = 5']),
    'removed_without_record',
    5n,
  );
});

test('content marked erased by an event that is not a removal record', async () => {
  expectFinding(await verifyTampered(db.pool, ['UPDATE events SET erased_by = 3 WHERE global_position = 6']), 'removed_without_record', 6n);
});

test('content marked erased by a removal record that does not list it', async () => {
  const edit = `UPDATE events SET erased_by = ${secondRecord.seq} WHERE global_position = 5`;
  expectFinding(await verifyTampered(db.pool, [edit]), 'removed_without_record', 5n);
});

test('content removed by hand with no marks at all is a data change', async () => {
  expectFinding(await verifyTampered(db.pool, [`UPDATE events SET data = '{}' WHERE global_position = 8`]), 'data_changed', 8n);
});

test("an erased event's kept hash altered", async () => {
  const edit = `UPDATE events SET data_sha256 = repeat('0', 64) WHERE global_position = 6`;
  expectFinding(await verifyTampered(db.pool, [edit]), 'data_changed', 6n);
});

test("an erased event's kept hash cut short: a data change there, not a misread of the events after it", async () => {
  const edit = `UPDATE events SET data_sha256 = repeat('ab', 31) WHERE global_position = 6`;
  expectFinding(await verifyTampered(db.pool, [edit]), 'data_changed', 6n);
});

test.run();
