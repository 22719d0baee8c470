import type { CommonQueryMethods } from 'slonik';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { START, type StoredEvent } from '../../domain/eventstore/types.ts';
import type { Projection } from '../../projections/projection.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { freshMigratedDatabase } from './database.ts';
import { appendGiven, type GivenStream } from './givenStreams.ts';

export { GIVEN_TIME, type GivenStream, inStream } from './givenStreams.ts';

type Query<T> = (db: CommonQueryMethods) => Promise<T>;

/**
 * given(streams).then(query, expected) for a read model: a fresh database, the given events
 * appended to the real event store, the projection brought up to date by the real runner, then
 * the query's answer compared with what is expected. Every scenario also checks the projection's
 * contract: applying all its events a second time changes no answer (idempotence).
 *
 *   await projectionSpec(tracingProjection)
 *     .given(inStream(projectStream('shop'), created), inStream(projectStream('shop'), updated))
 *     .then((db) => findProjectByName(db, 'shop'), expectedRow);
 *
 * Read models whose queries join another's rows (experiments name their dataset's row ids) are
 * specified with that one alongside: `projectionSpec(experimentsProjection, datasetsProjection)`.
 */
export const projectionSpec = (projection: Projection, ...alongside: readonly Projection[]) => ({
  given: (...history: readonly GivenStream[]) => {
    const scenario = async <T>(query: Query<T>, check: (answer: T, round: string) => void): Promise<void> => {
      const db = await freshMigratedDatabase();
      try {
        const store = createPostgresEventStore(db.pool);
        await appendGiven(store, history);
        await createProjectionRunner({ store, pool: db.pool, projections: [projection, ...alongside] }).catchUp();
        check(await query(db.pool), 'after the events');
        const all: StoredEvent[] = await store.readAll(START, 1_000_000);
        for (const again of [projection, ...alongside]) await db.pool.transaction((tx) => again.apply(tx, all));
        check(await query(db.pool), 'after every event was applied again (a projection must be idempotent)');
      } finally {
        await db.close();
      }
    };
    return {
      /** The query's answer equals `expected` (deep equality). */
      then: <T>(query: Query<T>, expected: T): Promise<void> => scenario(query, (answer, round) => assert.equal(answer, expected, round)),
      /** For answers with parts the test cannot know (generated ids): assert inside `check`. */
      thenMatches: <T>(query: Query<T>, check: (answer: T) => void): Promise<void> => scenario(query, (answer) => check(answer)),
    };
  },
});
