import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { DatasetNameCommand } from './commands.ts';
import type { DatasetNameEvent } from './events.ts';

/** name → the dataset holding it. */
export type DatasetNamesState = ReadonlyMap<string, string>;

const decide = (c: DatasetNameCommand, state: DatasetNamesState): DatasetNameEvent[] => {
  const holder = state.get(c.name);
  switch (c.type) {
    case 'ClaimDatasetName':
      if (holder === c.datasetId) return [];
      if (holder !== undefined) throw new DomainError('dataset_exists', `A dataset named "${c.name}" already exists.`, 'conflict');
      return [{ type: 'DatasetNameClaimed', data: { name: c.name, datasetId: c.datasetId } }];
    case 'ReleaseDatasetName':
      return holder === c.datasetId ? [{ type: 'DatasetNameReleased', data: { name: c.name, datasetId: c.datasetId } }] : [];
  }
};

const evolve = (state: DatasetNamesState, event: DatasetNameEvent): DatasetNamesState => {
  const next = new Map(state);
  if (event.type === 'DatasetNameClaimed') next.set(event.data.name, event.data.datasetId);
  else if (event.type === 'DatasetNameReleased' && next.get(event.data.name) === event.data.datasetId) next.delete(event.data.name);
  return next;
};

/** Unique dataset names: a name is claimed before the dataset is created or renamed, released when deleted. */
export const datasetNameDecider: Decider<DatasetNamesState, DatasetNameCommand, DatasetNameEvent> = {
  initialState: () => new Map(),
  evolve,
  decide,
};
