import { randomUUID } from 'node:crypto';
import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { ExperimentCommand, RecordExperimentEvaluation, RecordExperimentRun } from './commands.ts';
import { experimentDecider } from './experimentDecider.ts';
import { experimentEvaluationDecider } from './experimentEvaluationDecider.ts';
import { experimentRunDecider } from './experimentRunDecider.ts';
import type { ExperimentEvaluationRecorded, ExperimentEvent, ExperimentRunRecorded } from './events.ts';
import { experimentEvaluationStream, experimentRunStream, experimentStream } from './experimentStream.ts';

export const changeExperiment = (
  store: EventStore,
  command: ExperimentCommand,
  context: CommandContext,
): Promise<CommandResult<ExperimentEvent>> =>
  handleCommand(store, experimentStream(command.experimentId), experimentDecider, command, context);

/** Records a run; the result's event carries the run id (the earlier failed run's, when it replaces one). */
export const recordExperimentRun = (
  store: EventStore,
  run: Omit<RecordExperimentRun, 'type' | 'runId'>,
  context: CommandContext,
): Promise<CommandResult<ExperimentRunRecorded>> =>
  handleCommand(
    store,
    experimentRunStream(run.experimentId, run.exampleId, run.repetition),
    experimentRunDecider,
    { type: 'RecordExperimentRun', runId: randomUUID(), ...run },
    context,
  );

export const recordExperimentEvaluation = (
  store: EventStore,
  evaluation: Omit<RecordExperimentEvaluation, 'type'>,
  context: CommandContext,
): Promise<CommandResult<ExperimentEvaluationRecorded>> =>
  handleCommand(
    store,
    experimentEvaluationStream(),
    experimentEvaluationDecider,
    { type: 'RecordExperimentEvaluation', ...evaluation },
    context,
  );
