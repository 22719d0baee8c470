import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { checkDescription, checkName } from '../datasets/storableExample.ts';
import type { ExperimentCommand } from './commands.ts';
import type { ExperimentEvent, ExperimentUpdated } from './events.ts';

export type ExperimentState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly experimentId: string;
      readonly name: string;
      readonly description: string | null;
      readonly metadata: unknown;
    }
  | { readonly status: 'deleted' };

/** The most repetitions an experiment may ask for: each is a run of every example. */
export const MAX_REPETITIONS = 1000;

const decide = (c: ExperimentCommand, state: ExperimentState): ExperimentEvent[] => {
  if (c.type === 'CreateExperiment') {
    if (state.status !== 'absent') return [];
    checkName('invalid_experiment_name', 'name', c.name);
    checkDescription('description', c.description);
    if (!Number.isSafeInteger(c.repetitions) || c.repetitions < 1 || c.repetitions > MAX_REPETITIONS)
      throw new DomainError('invalid_repetitions', `repetitions: must be an integer from 1 to ${MAX_REPETITIONS}`);
    const { type: _type, ...data } = c;
    return [{ type: 'ExperimentCreated', data }];
  }
  if (state.status !== 'active' || state.experimentId !== c.experimentId)
    throw new DomainError('experiment_not_found', `Experiment ${c.experimentId} not found`, 'not_found');
  if (c.type === 'DeleteExperiment') return [{ type: 'ExperimentDeleted', data: { experimentId: c.experimentId } }];
  if (c.name !== undefined) checkName('invalid_experiment_name', 'name', c.name);
  checkDescription('description', c.description);
  const data: ExperimentUpdated['data'] = {
    experimentId: c.experimentId,
    ...(c.name !== undefined && c.name !== state.name ? { name: c.name } : {}),
    ...(c.description !== undefined && c.description !== state.description ? { description: c.description } : {}),
    ...(c.metadata !== undefined && JSON.stringify(c.metadata) !== JSON.stringify(state.metadata) ? { metadata: c.metadata } : {}),
  };
  return Object.keys(data).length > 1 ? [{ type: 'ExperimentUpdated', data }] : [];
};

const evolve = (state: ExperimentState, event: ExperimentEvent): ExperimentState => {
  switch (event.type) {
    case 'ExperimentCreated':
      return { status: 'active', ...event.data };
    case 'ExperimentUpdated':
      return state.status === 'active' ? { ...state, ...event.data } : state;
    case 'ExperimentDeleted':
      return { status: 'deleted' };
    default:
      return state;
  }
};

/** One experiment: created on a dataset version, renamed or described, deleted (with its runs and evaluations). */
export const experimentDecider: Decider<ExperimentState, ExperimentCommand, ExperimentEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
};
