import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveAuditKey } from '../../../domain/audit/auditKey.ts';
import type { FindingKind, VerifyReport } from '../../../domain/audit/verifyChain.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { positionToString } from '../../../domain/eventstore/types.ts';
import { verifyChain } from '../../../domain/audit/verifyChain.ts';
import { postgresChainReader } from '../../../projections/audit/postgresChainReader.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { appendSampleEvents, sealEverything, TEST_AUDIT_KEY, verify, verifyTampered } from './auditFixture.ts';

const test = suite('audit verify names the first thing changed in a tampered log');

let db: TestDatabase;

test.before(async () => {
  db = await freshMigratedDatabase();
  await appendSampleEvents(createPostgresEventStore(db.pool), 30);
  await sealEverything(db.pool);
});
test.after(async () => db.close());

const expectFinding = (report: VerifyReport, kind: FindingKind, seq: bigint | null) => {
  assert.ok(report.finding, `expected ${kind}, the log verified`);
  assert.is(report.finding.kind, kind, report.finding.detail);
  if (seq !== null)
    assert.is(report.finding.position?.seq, seq, `position ${report.finding.position && positionToString(report.finding.position)}`);
};

test('an untouched log verifies, and events appended after the newest seal are reported as not sealed yet', async () => {
  const report = await verifyTampered(db.pool, [], async (tx) => {
    await appendSampleEvents(createPostgresEventStore(tx), 2);
    return verify(tx);
  });
  assert.is(report.finding, null);
  assert.is(report.sealed, 30);
  assert.is(report.head?.ordinal, 30n);
  assert.is((await verify(db.pool)).finding, null);
  const smallPages = await verifyChain(postgresChainReader(db.pool, 100), TEST_AUDIT_KEY);
  assert.equal([smallPages.finding, smallPages.sealed], [null, 30], 'pages cut by bytes are not the end of the log');
});

test("one event's data changed", async () => {
  expectFinding(
    await verifyTampered(db.pool, [`UPDATE events SET data = '{"n":12,"text":"forged"}' WHERE global_position = 13`]),
    'data_changed',
    13n,
  );
});

test("one event's data changed in a way JSON does not see (whitespace)", async () => {
  expectFinding(
    await verifyTampered(db.pool, [`UPDATE events SET data = (data::text || ' ')::json WHERE global_position = 14`]),
    'data_changed',
    14n,
  );
});

test("one event's metadata changed", async () => {
  const edit = `UPDATE events SET metadata = jsonb_set(metadata, '{actor}', '"mallory"') WHERE global_position = 7`;
  expectFinding(await verifyTampered(db.pool, [edit]), 'metadata_changed', 7n);
});

test("one event's type changed", async () => {
  expectFinding(await verifyTampered(db.pool, [`UPDATE events SET type = 'SampleForged' WHERE global_position = 9`]), 'header_changed', 9n);
});

test('one event deleted', async () => {
  expectFinding(await verifyTampered(db.pool, ['DELETE FROM events WHERE global_position = 20']), 'event_missing', 20n);
});

test('one event deleted with its seal', async () => {
  const report = await verifyTampered(db.pool, ['DELETE FROM events WHERE global_position = 20', 'DELETE FROM audit_seals WHERE seq = 20']);
  expectFinding(report, 'event_missing', 21n);
});

test('two events swapped', async () => {
  // Positions are an identity column: an attacker deletes both rows and puts them back swapped.
  const report = await verifyTampered(db.pool, [
    'CREATE TEMP TABLE swapped ON COMMIT DROP AS SELECT * FROM events WHERE global_position IN (5, 6)',
    'DELETE FROM events WHERE global_position IN (5, 6)',
    `INSERT INTO events OVERRIDING SYSTEM VALUE
       SELECT CASE global_position WHEN 5 THEN 6 ELSE 5 END, transaction_id, event_id, stream, revision, type, schema_version, data, metadata, recorded_at, data_bytes
       FROM swapped`,
  ]);
  expectFinding(report, 'events_reordered', 5n);
});

test('an event slipped in between sealed ones', async () => {
  const report = await verifyTampered(db.pool, [
    `INSERT INTO events OVERRIDING SYSTEM VALUE
       SELECT 1000, transaction_id, gen_random_uuid(), stream, revision + 1000, type, schema_version, data, metadata, recorded_at, data_bytes
       FROM events WHERE global_position = 10`,
  ]);
  // Ordered by (transaction, position): it lands right after event 10.
  expectFinding(report, 'event_inserted', 1000n);
});

test('the newest events dropped', async () => {
  const report = await verifyTampered(db.pool, ['DELETE FROM events WHERE global_position > 27']);
  expectFinding(report, 'tail_truncated', 28n);
  assert.match(report.finding!.detail, /3 sealed event\(s\)/);
});

test('the newest events dropped with their seals: the checkpoint still knows the head', async () => {
  const report = await verifyTampered(db.pool, ['DELETE FROM events WHERE global_position > 27', 'DELETE FROM audit_seals WHERE seq > 27']);
  expectFinding(report, 'tail_truncated', 30n);
});

test('a seal edited', async () => {
  const report = await verifyTampered(db.pool, [`UPDATE audit_seals SET seal = decode(repeat('00', 32), 'hex') WHERE seq = 15`]);
  expectFinding(report, 'seal_altered', 15n);
});

test('a seal cut short: altered there, and the seals after it still read in place', async () => {
  const report = await verifyTampered(db.pool, ['UPDATE audit_seals SET seal = substring(seal from 1 for 31) WHERE seq = 15']);
  expectFinding(report, 'seal_altered', 15n);
});

test('verified with another key', async () => {
  assert.is((await verify(db.pool, deriveAuditKey('another-secret-0123456789abcdefghijkl'))).finding?.kind, 'wrong_key');
});

test('the whole chain re-sealed after an edit: without the key it cannot pass', async () => {
  const forger = deriveAuditKey(null);
  const edit = [`UPDATE events SET data = '{"n":3}' WHERE global_position = 4`, 'DELETE FROM audit_seals', 'DELETE FROM audit_checkpoints'];
  const forged = await verifyTampered(db.pool, edit, async (tx) => {
    await sealEverything(tx, forger);
    return verify(tx, forger);
  });
  assert.is(forged.finding, null, 'the forger verifies with the forger key');
  const real = await verifyTampered(db.pool, edit, async (tx) => {
    await sealEverything(tx, forger);
    return verify(tx);
  });
  assert.is(real.finding?.kind, 'wrong_key', 'but not with the real key');
  const relabelled = await verifyTampered(db.pool, edit, async (tx) => {
    await sealEverything(tx, forger);
    await tx.query(sql.unsafe`UPDATE audit_checkpoints SET key_id = ${TEST_AUDIT_KEY.id}`);
    return verify(tx);
  });
  expectFinding(relabelled, 'seal_altered', 1n);
});

test.run();
