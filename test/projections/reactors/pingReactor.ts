import { WrongExpectedRevisionError, type EventStore } from '../../../domain/eventstore/types.ts';
import type { Reactor } from '../../../projections/reactors/reactor.ts';

export type PingCommand = { readonly pong: number } | { readonly tick: string };

const meta = { actor: 'system', requestId: null, time: new Date(0).toISOString(), causation: 'ping' };

/**
 * A small reactor for runner tests: every `Ping {n}` answers with a `Pong` in stream `pong-<n>`
 * (appended with no_stream, so issuing it twice appends once), and its schedule records a `Tick`
 * per run. `issued` counts every issue, `seen` every event handed to `react`.
 */
export const pingReactor = (store: EventStore, options: { failFirst?: number } = {}) => {
  const issued: PingCommand[] = [];
  const seen: string[] = [];
  let failures = options.failFirst ?? 0;
  const reactor: Reactor<PingCommand> = {
    name: 'ping',
    eventTypes: ['Ping'],
    react: async (events) => {
      seen.push(...events.map((e) => e.type));
      return events.map((e) => ({ pong: (e.data as { n: number }).n }));
    },
    schedule: { everyMs: 60_000, react: async ({ now }) => [{ tick: now.toISOString() }] },
    async issue(command) {
      if (failures > 0) {
        failures--;
        throw new Error('the pong service is down');
      }
      issued.push(command);
      if ('tick' in command) {
        await store.appendToStream('ticks', [{ type: 'Tick', data: command, metadata: meta }], 'any');
        return;
      }
      try {
        await store.appendToStream(`pong-${command.pong}`, [{ type: 'Pong', data: command, metadata: meta }], 'no_stream');
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    },
  };
  return { reactor, issued, seen };
};
