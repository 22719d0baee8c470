import { randomUUID } from 'node:crypto';
import { DomainError } from '../errors.ts';
import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import { handleCommand, type CommandContext } from '../handleCommand.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import { datasetDecider } from './datasetDecider.ts';
import { datasetNameDecider } from './datasetNameDecider.ts';
import { DATASET_NAMES_STREAM, DATASET_SPLITS_STREAM, datasetStream, datasetUploadStream } from './datasetStream.ts';
import { datasetSplitDecider } from './datasetVocabularyDecider.ts';
import type { DatasetExamplesStaged, ExampleData } from './events.ts';
import { spoolChunks } from './uploadSpool.ts';
import { checkDescription, checkName, cleanExample } from './storableExample.ts';

export type NewExample = Omit<ExampleData, 'exampleId'>;

export type DatasetUpload = {
  /** The dataset to add a version to; null creates one named `name`. */
  readonly datasetId: string | null;
  readonly name: string;
  readonly description: string | null;
  /** Chunks of examples as they are parsed: each becomes one staged event, none is kept. */
  readonly chunks: AsyncIterable<readonly NewExample[]>;
  /** Where to keep the parsed chunks until the last one parsed (see uploadSpool): a temporary directory. */
  readonly spoolDir: string;
};

export type UploadResult = {
  readonly datasetId: string;
  readonly versionId: string;
  readonly staged: number;
  readonly position: Position | null;
};

/** Splits an upload names get this colour when they do not exist yet (as in the reference). */
const UPLOAD_SPLIT_COLOR = '#808080';

/**
 * An upload, streamed: the parsed chunks go to a spool file until the last one parsed (a bad row
 * refuses the upload before anything is appended), then each is staged on the upload's own stream
 * (so a 200 MB file never sits in memory or in one event), then the splits it names are created,
 * the name is claimed (a new dataset), and ONE append on the dataset's stream makes the version
 * that takes the staged examples in. Every check that can refuse the upload runs before the first
 * staged event; what can still fail after it (the name claimed meanwhile by another upload, the
 * database) leaves staged examples that no version takes in, on the upload's own stream.
 */
export const uploadDataset = async (store: EventStore, upload: DatasetUpload, context: CommandContext): Promise<UploadResult> => {
  if (upload.datasetId === null) checkName('invalid_dataset_name', 'name', upload.name);
  checkDescription('description', upload.description);
  const uploadId = randomUUID();
  const stream = datasetUploadStream(uploadId);
  const splitNames = new Set<string>();
  let staged = 0;
  async function* cleaned(): AsyncGenerator<ExampleData[]> {
    for await (const chunk of upload.chunks) {
      if (chunk.length === 0) continue;
      const examples = chunk.map((e) => cleanExample({ ...e, exampleId: randomUUID() }));
      for (const e of examples) for (const s of e.splits) splitNames.add(s);
      staged += examples.length;
      yield examples;
    }
  }
  const spool = await spoolChunks(cleaned(), upload.spoolDir);
  try {
    if (staged === 0) throw new DomainError('empty_upload', 'The upload holds no examples');
    for (const s of splitNames) checkName('invalid_split_name', 'splits', s);
    let seq = 0;
    for await (const examples of spool.chunks()) {
      const event: DatasetExamplesStaged = { type: 'DatasetExamplesStaged', data: { uploadId, seq: seq++, examples } };
      await store.appendToStream(stream, [{ ...event, metadata: eventMetadata(context, 'UploadDataset', context.now?.()) }], 'any');
    }
    const splits = [...splitNames].map((name) => ({ name, description: null, color: UPLOAD_SPLIT_COLOR, metadata: {} as JsonObject }));
    return await addVersion(store, upload, uploadId, splits, context, staged);
  } finally {
    await spool.dispose();
  }
};

const addVersion = async (
  store: EventStore,
  upload: DatasetUpload,
  uploadId: string,
  splits: readonly { name: string; description: null; color: string; metadata: JsonObject }[],
  context: CommandContext,
  staged: number,
): Promise<UploadResult> => {
  if (splits.length > 0) {
    await handleCommand(
      store,
      DATASET_SPLITS_STREAM,
      datasetSplitDecider,
      { type: 'CreateDatasetSplits', splits, ifAbsent: true },
      context,
    );
  }
  const datasetId = upload.datasetId ?? randomUUID();
  if (upload.datasetId === null)
    await handleCommand(
      store,
      DATASET_NAMES_STREAM,
      datasetNameDecider,
      { type: 'ClaimDatasetName', name: upload.name, datasetId },
      context,
    );
  const versionId = randomUUID();
  const result = await handleCommand(
    store,
    datasetStream(datasetId),
    datasetDecider,
    {
      type: 'AddDatasetVersion',
      datasetId,
      create: upload.datasetId === null ? { name: upload.name, description: upload.description, metadata: {} } : null,
      versionId,
      description: null,
      metadata: {},
      uploadId,
      added: [],
      patched: [],
      deleted: [],
    },
    context,
  );
  return { datasetId, versionId, staged, position: result.position };
};
