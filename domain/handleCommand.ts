import type { Decider, DomainEvent } from './decider.ts';
import { eventMetadata } from './eventMetadata.ts';
import type { AppendResult, EventStore, Position } from './eventstore/types.ts';
import { WrongExpectedRevisionError } from './eventstore/types.ts';
import { readAndFold } from './readAndFold.ts';

export type CommandContext = {
  /** user id, `apikey:<id>`, or `system` */
  readonly actor: string;
  readonly requestId: string | null;
  readonly now?: () => Date;
};

export type CommandResult<Event extends DomainEvent> = {
  readonly events: readonly Event[];
  /** Position of the last appended event, or null when the decider decided nothing. */
  readonly position: Position | null;
  readonly revision: number | null;
};

const MAX_ATTEMPTS = 10;

/**
 * Read the stream, fold it, decide, append with the revision we read. A concurrent writer makes
 * the append fail with WrongExpectedRevisionError; we then decide again on the new state, because
 * the command may no longer be valid (e.g. a username taken meanwhile).
 */
export const handleCommand = async <State, Command extends { readonly type: string }, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  context: CommandContext,
): Promise<CommandResult<Event>> => {
  for (let attempt = 1; ; attempt++) {
    const { state, expected } = await readAndFold(store, stream, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, position: null, revision: null };
    const metadata = eventMetadata(context, command.type, context.now?.());
    let result: AppendResult;
    try {
      result = await store.appendToStream(
        stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        expected,
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
    return { events, position: result.position, revision: result.revision };
  }
};
