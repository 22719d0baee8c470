import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { START, type StoredEvent } from '../../domain/eventstore/types.ts';
import type { Projection } from '../../projections/projection.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import type { Reactor, ReactorContext } from '../../projections/reactors/reactor.ts';
import { untilVisible } from '../../projections/reactors/reactorRunner.ts';
import { freshMigratedDatabase } from './database.ts';
import { appendGiven, GIVEN_TIME, type GivenStream } from './givenStreams.ts';

export { GIVEN_TIME, inStream, type GivenStream } from './givenStreams.ts';

type When<Command> = (reactor: Reactor<Command>, events: readonly StoredEvent[], context: ReactorContext) => Promise<readonly Command[]>;

/**
 * given(streams) → then(commands) for a reactor: a fresh database, the events appended to the
 * real event store, the named read models brought up to date by the real runner (a reactor that
 * reads read models finds them as the runner would leave them), then the reactor decides — on
 * the events of its types (`then`), or on its schedule at a given time (`onSchedule(now).then`) —
 * and its commands are compared with the expected ones. Nothing is issued.
 *
 *   await reactorSpec(erasureReactor, { readModels: [tracingProjection] })
 *     .given(inStream('tracing-p', traceDeleted))
 *     .then([{ type: 'RemoveContent', ... }]);
 */
export const reactorSpec = <Command>(reactor: Reactor<Command>, options: { readonly readModels?: readonly Projection[] } = {}) => ({
  given: (...history: readonly GivenStream[]) => {
    const scenario = async (when: When<Command>, check: (commands: readonly Command[]) => void, now: Date) => {
      const db = await freshMigratedDatabase();
      try {
        const store = createPostgresEventStore(db.pool);
        await appendGiven(store, history);
        if (options.readModels?.length) await createProjectionRunner({ store, pool: db.pool, projections: options.readModels }).catchUp();
        await untilVisible(store, await store.headPosition());
        const filter = reactor.eventTypes ? { types: reactor.eventTypes } : undefined;
        const events = await store.readAll(START, 1_000_000, filter);
        check(await when(reactor, events, { db: db.pool, now }));
      } finally {
        await db.close();
      }
    };
    const onEvents: When<Command> = async (r, events, context) => (r.react && events.length > 0 ? r.react(events, context) : []);
    const onSchedule: When<Command> = async (r, _events, context) => {
      if (!r.schedule) throw new Error(`reactor "${r.name}" has no schedule`);
      return r.schedule.react(context);
    };
    const thenFor = (when: When<Command>, now: Date) => ({
      /** The commands equal `expected` (deep equality, in order). */
      then: (expected: readonly Command[]) => scenario(when, (commands) => assert.equal(commands, expected), now),
      /** For commands with parts the test cannot know: assert inside `check`. */
      thenMatches: (check: (commands: readonly Command[]) => void) => scenario(when, check, now),
    });
    return {
      ...thenFor(onEvents, GIVEN_TIME),
      /** The reactor reacts to the given events as if it were `now`. */
      at: (now: Date) => thenFor(onEvents, now),
      /** The reactor's schedule runs at `now` (the given events are only in the log and read models). */
      onSchedule: (now: Date) => thenFor(onSchedule, now),
    };
  },
});
