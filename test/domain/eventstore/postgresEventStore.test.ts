import { sql } from 'slonik';
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
appendOnly.run();
