import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { storableJson } from '../base/storableJson.ts';
import { checkStorableTime } from '../base/storableTime.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../base/storableText.ts';
import type { RecordExperimentRun } from './commands.ts';
import type { ExperimentRunRecorded } from './events.ts';

/** The run of one (experiment, example, repetition) so far, if any. */
export type ExperimentRunState = { readonly runId: string | null; readonly succeeded: boolean };

const decide = (c: RecordExperimentRun, state: ExperimentRunState): ExperimentRunRecorded[] => {
  if (state.succeeded)
    throw new DomainError(
      'experiment_run_exists',
      `Example ${c.exampleId} already has a successful run for repetition ${c.repetition}; only a failed run can be run again`,
      'conflict',
    );
  if (!Number.isSafeInteger(c.repetition) || c.repetition < 1)
    throw new DomainError('invalid_repetition_number', 'repetition_number: must be an integer of at least 1');
  // Checked, not rewritten: the edge's times keep their microseconds.
  checkStorableTime('start_time', c.startTime, 'invalid_run_times');
  checkStorableTime('end_time', c.endTime, 'invalid_run_times');
  if (Date.parse(c.endTime) < Date.parse(c.startTime))
    throw new DomainError('invalid_run_times', 'end_time: must not be before start_time');
  return [
    {
      type: 'ExperimentRunRecorded',
      data: {
        experimentId: c.experimentId,
        runId: state.runId ?? c.runId,
        exampleId: c.exampleId,
        repetition: c.repetition,
        output: storableJson(c.output),
        startTime: c.startTime,
        endTime: c.endTime,
        traceId: c.traceId === null ? null : storableName(c.traceId),
        error: c.error === null ? null : clippedText(c.error, MESSAGE_MAX_BYTES),
      },
    },
  ];
};

/** One successful run per example and repetition; a failed one may be run again (replacing it). */
export const experimentRunDecider: Decider<ExperimentRunState, RecordExperimentRun, ExperimentRunRecorded> = {
  initialState: () => ({ runId: null, succeeded: false }),
  evolve: (_state, event) => ({ runId: event.data.runId, succeeded: event.data.error === null }),
  decide,
};
