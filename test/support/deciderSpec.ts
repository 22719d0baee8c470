import * as assert from 'uvu/assert';
import type { Decider, DomainEvent } from '../../domain/decider.ts';
import { fold } from '../../domain/decider.ts';
import { DomainError } from '../../domain/errors.ts';

/**
 * given(events).when(command).then(events) — or .thenThrows(code).
 * Reads like the rule it tests and never touches a database.
 */
export const deciderSpec = <State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) => ({
  given: (history: readonly Event[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, fold(decider, history));
      return {
        then: (expected: readonly Event[]) => assert.equal(run(), expected),
        thenMatches: (check: (events: readonly Event[]) => void) => check(run()),
        thenThrows: (code: string) => {
          try {
            run();
          } catch (error) {
            assert.instance(error, DomainError);
            assert.is((error as DomainError).code, code);
            return;
          }
          assert.unreachable(`expected DomainError "${code}"`);
        },
      };
    },
  }),
});
