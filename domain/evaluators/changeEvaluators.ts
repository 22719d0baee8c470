import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { EvaluatorCommand } from './commands.ts';
import { evaluatorDecider } from './evaluatorDecider.ts';
import { EVALUATORS_STREAM } from './evaluatorStream.ts';
import type { EvaluatorEvent } from './events.ts';

/** Any change to evaluators or their use on projects, decided on the one evaluators stream. */
export const changeEvaluators = (
  store: EventStore,
  command: EvaluatorCommand,
  context: CommandContext,
): Promise<CommandResult<EvaluatorEvent>> => handleCommand(store, EVALUATORS_STREAM, evaluatorDecider, command, context);
