import { randomUUID } from 'node:crypto';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { ensureProject } from '../projects/ensureProject.ts';
import type { CreateExperiment } from './commands.ts';
import { changeExperiment } from './recordExperiment.ts';

/**
 * A new experiment over a dataset version: the project its runs' traces go to is created first
 * when it does not exist yet, then the experiment (`ExperimentCreated`) with a fresh id. The one
 * way experiments start, from the REST API and from the playground.
 */
export const createExperiment = async (
  store: EventStore,
  experiment: Omit<CreateExperiment, 'type' | 'experimentId'>,
  context: CommandContext,
): Promise<{ readonly experimentId: string; readonly position: Position | null }> => {
  const project = await ensureProject(store, experiment.projectName, context);
  const experimentId = randomUUID();
  const result = await changeExperiment(store, { type: 'CreateExperiment', experimentId, ...experiment }, context);
  return { experimentId, position: result.position ?? project.created };
};
