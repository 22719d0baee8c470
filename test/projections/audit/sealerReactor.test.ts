import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createPostgresSealInputs } from '../../../domain/eventstore/postgresSealInputs.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { untilVisible } from '../../../projections/reactors/reactorRunner.ts';
import { createSealer } from '../../../projections/audit/createSealer.ts';
import { sealerReactor } from '../../../projections/audit/sealerReactor.ts';
import { freshMigratedDatabase } from '../../support/database.ts';
import { GIVEN_TIME, reactorSpec } from '../../support/reactorSpec.ts';
import { appendSampleEvents, TEST_AUDIT_KEY, verify } from './auditFixture.ts';

const test = suite('the sealer reactor');

const counts = z.object({ seals: z.number(), checkpoints: z.number() });

const reactorOn = (pool: Parameters<typeof createSealer>[0]['pool'], lines: string[] = []) =>
  sealerReactor({
    sealer: createSealer({ pool, key: TEST_AUDIT_KEY, source: createPostgresSealInputs }),
    logger: { info: (_obj: object, msg: string) => lines.push(msg) } as never,
  });

test('on its schedule it seals, with a checkpoint when none was recorded yet', async () => {
  // The decision reads only the checkpoints: the sealer it would issue to is not needed.
  await reactorSpec(reactorOn(null as never))
    .given()
    .onSchedule(GIVEN_TIME)
    .then([{ kind: 'seal', checkpoint: true }]);
});

test('it seals what is new, records and logs a checkpoint at most once a minute, and the result verifies', async () => {
  const db = await freshMigratedDatabase();
  try {
    const store = createPostgresEventStore(db.pool);
    const lines: string[] = [];
    const reactor = reactorOn(db.pool, lines);
    await appendSampleEvents(store, 5);
    await untilVisible(store, await store.headPosition());
    await reactor.issue({ kind: 'seal', checkpoint: true });
    const read = () =>
      db.pool.one(sql.type(counts)`
      SELECT (SELECT count(*)::int FROM audit_seals) AS seals, (SELECT count(*)::int FROM audit_checkpoints) AS checkpoints`);
    assert.equal(await read(), { seals: 5, checkpoints: 1 });
    assert.equal(lines, ['audit checkpoint']);

    const now = new Date();
    assert.equal(await reactor.schedule!.react({ db: db.pool, now }), [{ kind: 'seal', checkpoint: false }]);
    assert.equal(await reactor.schedule!.react({ db: db.pool, now: new Date(now.getTime() + 61_000) }), [
      { kind: 'seal', checkpoint: true },
    ]);

    await appendSampleEvents(store, 3);
    await untilVisible(store, await store.headPosition());
    await reactor.issue({ kind: 'seal', checkpoint: false });
    assert.equal(await read(), { seals: 8, checkpoints: 1 });
    const report = await verify(db.pool);
    assert.is(report.finding, null);
    assert.is(report.sealed, 8);
  } finally {
    await db.close();
  }
});

test.run();
