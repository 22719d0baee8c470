import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { isHexColor } from '../projects/projectColors.ts';
import type { DatasetLabelCommand, DatasetSplitCommand } from './commands.ts';
import type { DatasetLabelData, DatasetLabelEvent, DatasetSplitData, DatasetSplitEvent } from './events.ts';
import { checkDescription, checkName } from './storableExample.ts';

/** Ids are handed out in order and never reused, so a GlobalID names one label or split forever. */
export type VocabularyState<T> = { readonly lastId: number; readonly items: ReadonlyMap<number, T> };

const checkUnique = <T extends { readonly name: string }>(state: VocabularyState<T>, name: string, self: number | null, what: string) => {
  for (const [id, other] of state.items)
    if (id !== self && other.name === name)
      throw new DomainError(`${what.replace(' ', '_')}_exists`, `A ${what} named "${name}" already exists`, 'conflict');
};

const checkLabel = (state: VocabularyState<DatasetLabelData>, label: DatasetLabelData, self: number | null): void => {
  checkName('invalid_dataset_label', 'name', label.name);
  if (!isHexColor(label.color)) throw new DomainError('invalid_dataset_label', 'color: must be a colour like #1c76fc');
  checkDescription('description', label.description);
  checkUnique(state, label.name, self, 'dataset label');
};

const checkSplit = (state: VocabularyState<DatasetSplitData>, split: DatasetSplitData, self: number | null): void => {
  checkName('invalid_dataset_split', 'name', split.name);
  if (!isHexColor(split.color)) throw new DomainError('invalid_dataset_split', 'color: must be a colour like #1c76fc');
  checkDescription('description', split.description);
  checkUnique(state, split.name, self, 'dataset split');
};

const notFound = (what: string, id: number) =>
  new DomainError(`${what}_not_found`, `${what.replace('_', ' ')} ${id} not found`, 'not_found');

export const datasetLabelDecider: Decider<VocabularyState<DatasetLabelData>, DatasetLabelCommand, DatasetLabelEvent> = {
  initialState: () => ({ lastId: 0, items: new Map() }),
  evolve: (state, event) => {
    const items = new Map(state.items);
    if (event.type === 'DatasetLabelCreated') {
      items.set(event.data.labelId, event.data.label);
      return { lastId: Math.max(state.lastId, event.data.labelId), items };
    }
    if (event.type === 'DatasetLabelUpdated' && items.has(event.data.labelId)) items.set(event.data.labelId, event.data.label);
    if (event.type === 'DatasetLabelDeleted') items.delete(event.data.labelId);
    return { ...state, items };
  },
  decide: (c, state) => {
    switch (c.type) {
      case 'CreateDatasetLabel':
        checkLabel(state, c.label, null);
        return [{ type: 'DatasetLabelCreated', data: { labelId: state.lastId + 1, label: c.label } }];
      case 'UpdateDatasetLabel':
        if (!state.items.has(c.labelId)) throw notFound('dataset_label', c.labelId);
        checkLabel(state, c.label, c.labelId);
        return [{ type: 'DatasetLabelUpdated', data: { labelId: c.labelId, label: c.label } }];
      case 'DeleteDatasetLabel':
        if (!state.items.has(c.labelId)) throw notFound('dataset_label', c.labelId);
        return [{ type: 'DatasetLabelDeleted', data: { labelId: c.labelId } }];
    }
  },
};

export const datasetSplitDecider: Decider<VocabularyState<DatasetSplitData>, DatasetSplitCommand, DatasetSplitEvent> = {
  initialState: () => ({ lastId: 0, items: new Map() }),
  evolve: (state, event) => {
    const items = new Map(state.items);
    if (event.type === 'DatasetSplitCreated') {
      items.set(event.data.splitId, event.data.split);
      return { lastId: Math.max(state.lastId, event.data.splitId), items };
    }
    if (event.type === 'DatasetSplitUpdated' && items.has(event.data.splitId)) items.set(event.data.splitId, event.data.split);
    if (event.type === 'DatasetSplitDeleted') items.delete(event.data.splitId);
    return { ...state, items };
  },
  decide: (c, state) => {
    switch (c.type) {
      case 'CreateDatasetSplits': {
        const events: DatasetSplitEvent[] = [];
        let next = state;
        for (const split of c.splits) {
          if (c.ifAbsent && [...next.items.values()].some((s) => s.name === split.name)) continue;
          checkSplit(next, split, null);
          const splitId = next.lastId + 1;
          events.push({ type: 'DatasetSplitCreated', data: { splitId, split } });
          next = { lastId: splitId, items: new Map([...next.items, [splitId, split]]) };
        }
        return events;
      }
      case 'UpdateDatasetSplit':
        if (!state.items.has(c.splitId)) throw notFound('dataset_split', c.splitId);
        checkSplit(state, c.split, c.splitId);
        return [{ type: 'DatasetSplitUpdated', data: { splitId: c.splitId, split: c.split } }];
      case 'DeleteDatasetSplit':
        if (!state.items.has(c.splitId)) throw notFound('dataset_split', c.splitId);
        return [{ type: 'DatasetSplitDeleted', data: { splitId: c.splitId } }];
      case 'ChangeSplitExamples': {
        if (!state.items.has(c.splitId)) throw notFound('dataset_split', c.splitId);
        const removed = [...new Set(c.removed)];
        const added = [...new Set(c.added)].filter((id) => !removed.includes(id));
        return added.length + removed.length === 0
          ? []
          : [{ type: 'DatasetSplitExamplesChanged', data: { splitId: c.splitId, added, removed } }];
      }
    }
  },
};
