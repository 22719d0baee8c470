import type { EventStore } from '../eventstore/types.ts';
import { loadState } from '../readAndFold.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { DatasetCommand, DatasetLabelCommand, DatasetSplitCommand } from './commands.ts';
import { datasetDecider } from './datasetDecider.ts';
import { datasetNameDecider } from './datasetNameDecider.ts';
import { DATASET_LABELS_STREAM, DATASET_NAMES_STREAM, DATASET_SPLITS_STREAM, datasetStream } from './datasetStream.ts';
import { datasetLabelDecider, datasetSplitDecider } from './datasetVocabularyDecider.ts';
import type { DatasetEvent, DatasetLabelEvent, DatasetSplitEvent } from './events.ts';

/** Any command on one dataset's stream. A rename claims the new name first and releases the old one after. */
export const changeDataset = async (
  store: EventStore,
  command: DatasetCommand,
  context: CommandContext,
): Promise<CommandResult<DatasetEvent>> => {
  const before = command.type === 'RenameDataset' ? await loadState(store, datasetStream(command.datasetId), datasetDecider) : null;
  if (command.type === 'RenameDataset')
    await handleCommand(
      store,
      DATASET_NAMES_STREAM,
      datasetNameDecider,
      { type: 'ClaimDatasetName', name: command.name, datasetId: command.datasetId },
      context,
    );
  const result = await handleCommand(store, datasetStream(command.datasetId), datasetDecider, command, context);
  for (const event of result.events) {
    if (event.type === 'DatasetDeleted')
      await handleCommand(store, DATASET_NAMES_STREAM, datasetNameDecider, { type: 'ReleaseDatasetName', ...event.data }, context);
    if (event.type === 'DatasetRenamed' && before?.status === 'active')
      await handleCommand(
        store,
        DATASET_NAMES_STREAM,
        datasetNameDecider,
        { type: 'ReleaseDatasetName', name: before.name, datasetId: before.datasetId },
        context,
      );
  }
  return result;
};

export const changeDatasetLabels = (
  store: EventStore,
  command: DatasetLabelCommand,
  context: CommandContext,
): Promise<CommandResult<DatasetLabelEvent>> => handleCommand(store, DATASET_LABELS_STREAM, datasetLabelDecider, command, context);

export const changeDatasetSplits = (
  store: EventStore,
  command: DatasetSplitCommand,
  context: CommandContext,
): Promise<CommandResult<DatasetSplitEvent>> => handleCommand(store, DATASET_SPLITS_STREAM, datasetSplitDecider, command, context);
