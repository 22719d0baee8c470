import { createHash } from 'node:crypto';
import { sql, type DatabaseTransactionConnection } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { freshMigratedDatabase } from '../../support/database.ts';
import { ev, eventStoreContract } from './eventStoreContract.ts';

const test = eventStoreContract('postgres', async () => {
  const db = await freshMigratedDatabase();
  const store = createPostgresEventStore(db.pool);
  return {
    store,
    close: () => db.close(),
    // PGlite is one session: a second transaction cannot run while one is held open.
    appendHeldOpen:
      db.kind === 'postgres'
        ? async (stream, events) => {
            let release!: () => void;
            let appended!: () => void;
            const gate = new Promise<void>((r) => (release = r));
            const ready = new Promise<void>((r) => (appended = r));
            const done = db.pool.transaction(async (tx) => {
              await createPostgresEventStore(tx).appendToStream(stream, events, 'any');
              appended();
              await gate;
            });
            await ready;
            return { commit: async () => (release(), await done) };
          }
        : undefined,
  };
});

test.run();

const appendOnly = suite('postgres event log is append-only');
appendOnly('updates, deletes and truncates are refused by the database', async () => {
  const db = await freshMigratedDatabase();
  try {
    await createPostgresEventStore(db.pool).appendToStream('s', [ev('A')], 'no_stream');
    for (const statement of [sql.unsafe`UPDATE events SET type = 'B'`, sql.unsafe`DELETE FROM events`, sql.unsafe`TRUNCATE events`]) {
      try {
        await db.pool.query(statement);
        assert.unreachable('the statement must be refused');
      } catch (error) {
        assert.match(String((error as Error).message), /append-only/);
      }
    }
    assert.is(await db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM events`), 1);
  } finally {
    await db.close();
  }
});
appendOnly(
  "the removal exception: only data, only with the setting AND a removal record of the same transaction; the hash is the database's",
  async () => {
    const db = await freshMigratedDatabase();
    try {
      const store = createPostgresEventStore(db.pool);
      await store.appendToStream('s', [ev('A', { secret: 'canary' })], 'no_stream');
      const refused = async (label: string, run: (tx: DatabaseTransactionConnection) => Promise<unknown>) => {
        try {
          await db.pool.transaction(async (tx) => {
            await tx.query(sql.unsafe`SELECT set_config('loupe.removal', 'on', true)`);
            await run(tx);
          });
          assert.unreachable(`${label} must be refused`);
        } catch (error) {
          assert.match(String((error as Error).message), /append-only/, label);
        }
      };
      const record = (tx: DatabaseTransactionConnection, type = 'ContentRemoved') =>
        tx.oneFirst(sql.unsafe`
        INSERT INTO events (event_id, stream, revision, type, data, metadata)
        VALUES (gen_random_uuid(), 'removals', 0, ${type}, '{}'::json, '{}'::jsonb) RETURNING global_position`);
      await refused('a data update without a removal record', (tx) =>
        tx.query(sql.unsafe`UPDATE events SET data = '{}'::json, erased_by = 99`),
      );
      await refused('a data update whose record is of another type', async (tx) => {
        const at = await record(tx, 'SomethingElse');
        await tx.query(sql.unsafe`UPDATE events SET data = '{}'::json, erased_by = ${at as number} WHERE stream = 's'`);
      });
      await refused('a change of type, even with a record', async (tx) => {
        const at = await record(tx);
        await tx.query(sql.unsafe`UPDATE events SET type = 'B', erased_by = ${at as number} WHERE stream = 's'`);
      });
      await refused('a change of metadata, even with a record', async (tx) => {
        const at = await record(tx);
        await tx.query(sql.unsafe`UPDATE events SET metadata = '{"actor":"x"}'::jsonb, erased_by = ${at as number} WHERE stream = 's'`);
      });
      await refused('a DELETE with the setting', (tx) => tx.query(sql.unsafe`DELETE FROM events`));
      await refused('a TRUNCATE with the setting', (tx) => tx.query(sql.unsafe`TRUNCATE events`));
      // A record made by a previous transaction does not license a later update.
      const earlier = await db.pool.oneFirst(sql.unsafe`
      INSERT INTO events (event_id, stream, revision, type, data, metadata)
      VALUES (gen_random_uuid(), 'removals', 0, 'ContentRemoved', '{}'::json, '{}'::jsonb) RETURNING global_position`);
      await refused('an update pointing at a record of another transaction', (tx) =>
        tx.query(sql.unsafe`UPDATE events SET data = '{}'::json, erased_by = ${earlier as number} WHERE stream = 's'`),
      );
      // Allowed: the data, with a record of this transaction; the caller's hash is replaced by the real one.
      await db.pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT set_config('loupe.removal', 'on', true)`);
        const at = await tx.oneFirst(sql.unsafe`
        INSERT INTO events (event_id, stream, revision, type, data, metadata)
        VALUES (gen_random_uuid(), 'removals', 1, 'ContentRemoved', '{}'::json, '{}'::jsonb) RETURNING global_position`);
        await tx.query(
          sql.unsafe`UPDATE events SET data = '{}'::json, erased_by = ${at as number}, data_sha256 = 'forged' WHERE stream = 's'`,
        );
      });
      const [event] = await store.readStream('s');
      assert.equal(event!.data, {});
      assert.is(
        event!.erased?.dataSha256,
        createHash('sha256')
          .update(JSON.stringify({ secret: 'canary' }))
          .digest('hex'),
      );
    } finally {
      await db.close();
    }
  },
);
appendOnly.run();

const horizon = suite('postgres event log: what holds readers back');
horizon(
  'a running transaction that never touches the log (another database, a read-model write) does not hide newer events; one that appended does',
  async () => {
    const db = await freshMigratedDatabase();
    const neighbour = await freshMigratedDatabase();
    try {
      if (db.kind !== 'postgres') return; // PGlite is one session: nothing runs beside a reader
      const store = createPostgresEventStore(db.pool);
      // Given a transaction in another database and one in this database that hold transaction ids
      // (as a long report elsewhere on the server, or a projection batch writing read models)
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let started = 0;
      let bothStarted!: () => void;
      const ready = new Promise<void>((r) => (bothStarted = r));
      const hold = (pool: typeof db.pool) =>
        pool.transaction(async (tx) => {
          await tx.query(sql.unsafe`SELECT pg_current_xact_id()`);
          if (++started === 2) bothStarted();
          await gate;
        });
      const holders = [hold(neighbour.pool), hold(db.pool)];
      await ready;
      // When an event is appended after them, then it is readable at once
      await store.appendToStream('after-holders', [ev('Later')], 'no_stream');
      const seen = (await store.readAll({ tx: 0n, seq: 0n }, 10)).map((e) => e.stream);
      assert.equal(seen, ['after-holders']);
      release();
      await Promise.all(holders);

      // But an append held open keeps a newer committed event hidden until it commits
      let commitAppend!: () => void;
      const appendGate = new Promise<void>((r) => (commitAppend = r));
      let appended!: () => void;
      const inFlight = new Promise<void>((r) => (appended = r));
      const open = db.pool.transaction(async (tx) => {
        await createPostgresEventStore(tx).appendToStream('held', [ev('Held')], 'no_stream');
        appended();
        await appendGate;
      });
      await inFlight;
      await store.appendToStream('newer', [ev('Newer')], 'no_stream');
      const whileHeld = (await store.readAll({ tx: 0n, seq: 0n }, 10)).map((e) => e.stream);
      assert.equal(whileHeld, ['after-holders']);
      commitAppend();
      await open;
      const afterCommit = (await store.readAll({ tx: 0n, seq: 0n }, 10)).map((e) => e.stream);
      assert.equal(afterCommit, ['after-holders', 'held', 'newer']);
    } finally {
      await db.close();
      await neighbour.close();
    }
  },
);
horizon.run();
