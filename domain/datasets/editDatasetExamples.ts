import { randomUUID } from 'node:crypto';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import { changeDataset } from './changeDataset.ts';
import type { DatasetEvent, ExamplePatch } from './events.ts';
import { storableObject } from './storableExample.ts';

export type ExampleEdit = {
  readonly datasetId: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  /** Each example's whole new content; the caller has checked the examples are alive at the latest version. */
  readonly patched: readonly ExamplePatch[];
  readonly deleted: readonly string[];
};

/**
 * Examples edited or deleted by a person (or a client): one new version holding every change.
 * Content is made storable here, as an upload's is, so what is acknowledged is what is kept.
 */
export const editDatasetExamples = async (
  store: EventStore,
  edit: ExampleEdit,
  context: CommandContext,
): Promise<CommandResult<DatasetEvent> & { readonly versionId: string }> => {
  const versionId = randomUUID();
  const result = await changeDataset(
    store,
    {
      type: 'AddDatasetVersion',
      datasetId: edit.datasetId,
      create: null,
      versionId,
      description: edit.description,
      metadata: storableObject(edit.metadata),
      uploadId: null,
      added: [],
      patched: edit.patched.map((p) => ({
        exampleId: p.exampleId,
        input: storableObject(p.input),
        output: storableObject(p.output),
        metadata: storableObject(p.metadata),
      })),
      deleted: edit.deleted,
    },
    context,
  );
  return { ...result, versionId };
};
