import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import type { DatasetCommand } from './commands.ts';
import type { DatasetEvent, DatasetUpdated } from './events.ts';
import { identifierProblem } from '../prompts/promptName.ts';
import { checkDescription, checkName } from './storableExample.ts';

export type ActiveDataset = {
  readonly status: 'active';
  readonly datasetId: string;
  readonly name: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  readonly versionIds: readonly string[];
  readonly labelIds: readonly number[];
  readonly tags: ReadonlyMap<string, { readonly experimentId: string; readonly description: string | null }>;
};
export type DatasetState = { readonly status: 'absent' } | ActiveDataset | { readonly status: 'deleted'; readonly datasetId: string };

const notFound = (datasetId: string) => new DomainError('dataset_not_found', `Dataset ${datasetId} not found`, 'not_found');

const active = (state: DatasetState, datasetId: string): ActiveDataset => {
  if (state.status !== 'active' || state.datasetId !== datasetId) throw notFound(datasetId);
  return state;
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const decide = (c: DatasetCommand, state: DatasetState): DatasetEvent[] => {
  switch (c.type) {
    case 'AddDatasetVersion': {
      const created: DatasetEvent[] = [];
      if (state.status !== 'active' || state.datasetId !== c.datasetId) {
        if (c.create === null || state.status !== 'absent') throw notFound(c.datasetId);
        checkName('invalid_dataset_name', 'name', c.create.name);
        checkDescription('description', c.create.description);
        created.push({ type: 'DatasetCreated', data: { datasetId: c.datasetId, ...c.create } });
      } else if (state.versionIds.includes(c.versionId)) return [];
      checkDescription('version_description', c.description);
      // One change per example in a version: its revision at that version is then unambiguous.
      const seen = new Set<string>();
      const repeated = [...c.patched.map((p) => p.exampleId), ...c.deleted].find((id) => seen.size === seen.add(id).size);
      if (repeated !== undefined)
        throw new DomainError('example_changed_twice', `Example ${repeated} is patched or deleted more than once in one version`);
      const changes = c.added.length + c.patched.length + c.deleted.length;
      if (changes === 0 && c.uploadId === null)
        throw new DomainError('empty_version', 'A version must add, change or delete at least one example');
      const { datasetId, versionId } = c;
      return [
        ...created,
        {
          type: 'DatasetVersionCreated',
          data: { datasetId, versionId, description: c.description, metadata: c.metadata, uploadId: c.uploadId },
        },
        ...(c.added.length > 0 ? [{ type: 'DatasetExamplesAdded' as const, data: { datasetId, versionId, examples: c.added } }] : []),
        ...(c.patched.length > 0 ? [{ type: 'DatasetExamplesPatched' as const, data: { datasetId, versionId, examples: c.patched } }] : []),
        ...(c.deleted.length > 0
          ? [{ type: 'DatasetExamplesDeleted' as const, data: { datasetId, versionId, exampleIds: c.deleted } }]
          : []),
      ];
    }
    case 'RenameDataset': {
      const dataset = active(state, c.datasetId);
      checkName('invalid_dataset_name', 'name', c.name);
      return c.name === dataset.name ? [] : [{ type: 'DatasetRenamed', data: { datasetId: c.datasetId, name: c.name } }];
    }
    case 'UpdateDataset': {
      const dataset = active(state, c.datasetId);
      checkDescription('description', c.description);
      const data: DatasetUpdated['data'] = {
        datasetId: c.datasetId,
        ...(c.description !== undefined && c.description !== dataset.description ? { description: c.description } : {}),
        ...(c.metadata !== undefined && !sameJson(c.metadata, dataset.metadata) ? { metadata: c.metadata } : {}),
      };
      return Object.keys(data).length > 1 ? [{ type: 'DatasetUpdated', data }] : [];
    }
    case 'SetDatasetLabels': {
      const dataset = active(state, c.datasetId);
      const labelIds = [...new Set(c.labelIds)].sort((a, b) => a - b);
      return sameJson(labelIds, dataset.labelIds) ? [] : [{ type: 'DatasetLabelsSet', data: { datasetId: c.datasetId, labelIds } }];
    }
    case 'SetExperimentTag': {
      const dataset = active(state, c.datasetId);
      const problem = identifierProblem(c.name);
      if (problem !== null) throw new DomainError('invalid_tag_name', `name: ${problem}`);
      checkDescription('description', c.description);
      const current = dataset.tags.get(c.name);
      if (current?.experimentId === c.experimentId && current.description === c.description) return [];
      return [
        {
          type: 'ExperimentTagSet',
          data: { datasetId: c.datasetId, name: c.name, experimentId: c.experimentId, description: c.description },
        },
      ];
    }
    case 'RemoveExperimentTag': {
      const dataset = active(state, c.datasetId);
      return dataset.tags.get(c.name)?.experimentId === c.experimentId
        ? [{ type: 'ExperimentTagRemoved', data: { datasetId: c.datasetId, name: c.name } }]
        : [];
    }
    case 'DeleteDataset': {
      const dataset = active(state, c.datasetId);
      return [{ type: 'DatasetDeleted', data: { datasetId: c.datasetId, name: dataset.name } }];
    }
  }
};

const onActive = (state: DatasetState, datasetId: string, change: (d: ActiveDataset) => ActiveDataset): DatasetState =>
  state.status === 'active' && state.datasetId === datasetId ? change(state) : state;

const evolve = (state: DatasetState, event: DatasetEvent): DatasetState => {
  switch (event.type) {
    case 'DatasetCreated': {
      const { datasetId, name, description, metadata } = event.data;
      return { status: 'active', datasetId, name, description, metadata, versionIds: [], labelIds: [], tags: new Map() };
    }
    case 'DatasetVersionCreated':
      return onActive(state, event.data.datasetId, (d) => ({ ...d, versionIds: [...d.versionIds, event.data.versionId] }));
    case 'DatasetRenamed':
      return onActive(state, event.data.datasetId, (d) => ({ ...d, name: event.data.name }));
    case 'DatasetUpdated':
      return onActive(state, event.data.datasetId, (d) => ({
        ...d,
        ...(event.data.description !== undefined ? { description: event.data.description } : {}),
        ...(event.data.metadata !== undefined ? { metadata: event.data.metadata } : {}),
      }));
    case 'DatasetLabelsSet':
      return onActive(state, event.data.datasetId, (d) => ({ ...d, labelIds: event.data.labelIds }));
    case 'ExperimentTagSet':
      return onActive(state, event.data.datasetId, (d) => ({
        ...d,
        tags: new Map([...d.tags, [event.data.name, { experimentId: event.data.experimentId, description: event.data.description }]]),
      }));
    case 'ExperimentTagRemoved':
      return onActive(state, event.data.datasetId, (d) => ({
        ...d,
        tags: new Map([...d.tags].filter(([name]) => name !== event.data.name)),
      }));
    case 'DatasetDeleted':
      return { status: 'deleted', datasetId: event.data.datasetId };
    default:
      return state;
  }
};

/**
 * One dataset's lifecycle: created with its first version, more versions (each an immutable set
 * of changes), renamed, described, labelled, deleted. Example ids of a change are checked by the
 * caller against the read model: the stream does not fold example contents (a dataset may hold
 * 100,000 of them), and the read model ignores a change to an example it does not have.
 */
export const datasetDecider: Decider<DatasetState, DatasetCommand, DatasetEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
};
