import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { sealEverything, verify, verifyTampered } from './auditFixture.ts';

// The sealer hashes an event's header (id, stream, revision, type) in node; verify on
// Postgres/PGlite has the database hash the same bytes. Names that are not ASCII are where the two
// could part (UTF-8 lengths, not characters).
const test = suite("verify hashes an event's header as the sealer did");

let db: TestDatabase;

test.before(async () => {
  db = await freshMigratedDatabase();
  await createPostgresEventStore(db.pool).appendToStream(
    'señal-ü-😀',
    [
      {
        type: 'Notiz→Geändert',
        data: { n: 'ß' },
        metadata: { actor: 'Zoë', requestId: 'r-ü', time: '2026-01-01T00:00:00.000Z', causation: null },
      },
      { type: 'Plain', data: { n: 1 }, metadata: { actor: 'a', requestId: 'r', time: '2026-01-01T00:00:00.000Z', causation: null } },
    ],
    'no_stream',
  );
  await sealEverything(db.pool);
});
test.after(async () => db.close());

test('a stream and type that are not ASCII verify', async () => {
  const report = await verify(db.pool);
  assert.equal([report.finding, report.sealed], [null, 2]);
});

test('renaming that stream by one accent is a header change, named with the name it has now', async () => {
  const report = await verifyTampered(db.pool, [`UPDATE events SET stream = 'señal-u-😀' WHERE type = 'Notiz→Geändert'`]);
  assert.is(report.finding?.kind, 'header_changed', report.finding?.detail);
  assert.match(report.finding!.detail, /^Notiz→Geändert [0-9a-f-]{36} in señal-u-😀$/);
});

test('a revision changed is a header change', async () => {
  const report = await verifyTampered(db.pool, [`UPDATE events SET revision = 7 WHERE type = 'Plain'`]);
  assert.is(report.finding?.kind, 'header_changed', report.finding?.detail);
  assert.is(report.finding?.position?.seq, (await db.pool.oneFirst(sql.unsafe`SELECT max(global_position) FROM events`)) as bigint);
});

test.run();
