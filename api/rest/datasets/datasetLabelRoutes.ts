import { z } from 'zod';
import { changeDataset, changeDatasetLabels, changeDatasetSplits } from '../../../domain/datasets/changeDataset.ts';
import type { DatasetSplitData } from '../../../domain/datasets/events.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import {
  findDatasetExamples,
  findDatasetLabel,
  findDatasetSplit,
  labelsOfDataset,
  listDatasetLabels,
  type DatasetRow,
} from '../../../projections/datasets/datasetQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit, type RestRequest } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import {
  datasetLabelIdsBody,
  labelBody,
  labelJson,
  labelPatchBody,
  labelSchema,
  splitBody,
  splitJson,
  splitPatchBody,
  splitSchema,
} from './datasetJson.ts';
import { datasetByIdentifier } from './resolveDataset.ts';
import { anyGlobalId } from '../../http/globalId.ts';
import { shown } from '../../http/httpError.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, listOf, pageOf } from '../../http/responseSchemas.ts';

const labelIdOf = (raw: string, field: string): number => {
  const gid = anyGlobalId(raw);
  if (gid === null || gid.type !== 'DatasetLabel')
    throw new HttpError(422, 'invalid_label_id', `${field}: ${shown(raw)} is not a DatasetLabel id`);
  return gid.id;
};

const labelOr404 = async (deps: AppDeps, id: number, raw: string) => {
  const label = await findDatasetLabel(deps.pool, id);
  if (label === null) throw new HttpError(404, 'dataset_label_not_found', `Dataset label ${shown(raw)} not found`);
  return label;
};

/** Example GlobalIDs of this dataset as uuids; one of another dataset or unknown is a 404 naming it. */
const exampleUuids = async (deps: AppDeps, dataset: DatasetRow, raw: readonly string[], field: string): Promise<string[]> => {
  const ids = raw.map((r) => {
    const gid = anyGlobalId(r);
    if (gid === null || gid.type !== 'DatasetExample')
      throw new HttpError(422, 'invalid_body', `body.${field}: ${shown(r)} is not a DatasetExample id`);
    return gid.id;
  });
  if (ids.length === 0) return [];
  const found = await findDatasetExamples(deps.pool, dataset.dataset_id, { ids });
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length > 0)
    throw new HttpError(
      404,
      'dataset_example_not_found',
      `body.${field}: no examples of this dataset with ids ${missing.map((m) => toGlobalId('DatasetExample', String(m))).join(', ')}`,
    );
  return found.map((f) => f.example_id);
};

const splitOf = async (deps: AppDeps, dataset: DatasetRow, raw: string) => {
  const gid = anyGlobalId(raw);
  const split = await findDatasetSplit(deps.pool, dataset.dataset_id, gid?.type === 'DatasetSplit' ? { id: gid.id } : { name: raw });
  if (split === null) throw new HttpError(404, 'dataset_split_not_found', `Dataset split ${shown(raw)} not found`);
  return split;
};

const setLabels = async (
  deps: AppDeps,
  command: RestRequest<unknown, unknown, unknown>['command'],
  dataset: DatasetRow,
  labelIds: number[],
) => {
  await command((context) => changeDataset(deps.store, { type: 'SetDatasetLabels', datasetId: dataset.dataset_id, labelIds }, context));
  return { data: (await labelsOfDataset(deps.pool, dataset.dataset_id)).map(labelJson) };
};

/** Dataset labels (the global vocabulary and each dataset's set) and splits. */
export const datasetLabelRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/dataset_labels',
      query: z.object({ cursor: single, limit: limitParam(100) }),
      responses: { 200: pageOf(labelSchema) },
      handler: async ({ query: q }) => {
        const rows = await listDatasetLabels(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit });
        return page(rows, q.limit, byRowid('DatasetLabel'), labelJson);
      },
    }),
    route({
      method: 'POST',
      path: '/v1/dataset_labels',
      body: labelBody,
      responses: { 201: dataOf(labelSchema) },
      handler: async ({ body, command, context }) => {
        const result = await command(() =>
          changeDatasetLabels(
            deps.store,
            {
              type: 'CreateDatasetLabel',
              label: { name: body.name, color: body.color.toLowerCase(), description: body.description ?? null },
            },
            context,
          ),
        );
        const created = result.events[0]!;
        return { data: labelJson(await labelOr404(deps, created.data.labelId, String(created.data.labelId))) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/dataset_labels/:label_id',
      responses: { 200: dataOf(labelSchema) },
      handler: async ({ params }) => {
        return { data: labelJson(await labelOr404(deps, labelIdOf(params.label_id, 'path.label_id'), params.label_id)) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/dataset_labels/:label_id',
      body: labelPatchBody,
      responses: { 200: dataOf(labelSchema) },
      handler: async ({ body, command, params, context }) => {
        const label = await labelOr404(deps, labelIdOf(params.label_id, 'path.label_id'), params.label_id);
        if (body.name == null && body.color == null && body.description === undefined)
          throw new HttpError(422, 'invalid_body', 'body: nothing to update (name, color or description)');
        const next = {
          name: body.name ?? label.name,
          color: (body.color ?? label.color).toLowerCase(),
          description: body.description === undefined ? label.description : body.description,
        };
        await command(() => changeDatasetLabels(deps.store, { type: 'UpdateDatasetLabel', labelId: label.id, label: next }, context));
        return { data: labelJson(await labelOr404(deps, label.id, params.label_id)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/dataset_labels/:label_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const label = await labelOr404(deps, labelIdOf(params.label_id, 'path.label_id'), params.label_id);
        await command(() => changeDatasetLabels(deps.store, { type: 'DeleteDatasetLabel', labelId: label.id }, context));
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:dataset_identifier/labels',
      responses: { 200: listOf(labelSchema) },
      handler: async ({ params }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        return { data: (await labelsOfDataset(deps.pool, dataset.dataset_id)).map(labelJson) };
      },
    }),
    route({
      method: 'PUT',
      path: '/v1/datasets/:dataset_identifier/labels',
      body: datasetLabelIdsBody,
      responses: { 200: listOf(labelSchema) },
      handler: async ({ body, command, params }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const ids = body.dataset_label_ids.map((raw, i) => labelIdOf(raw, `body.dataset_label_ids.${i}`));
        for (const [i, id] of ids.entries()) await labelOr404(deps, id, body.dataset_label_ids[i]!);
        return await setLabels(deps, command, dataset, ids);
      },
    }),
    route({
      method: 'PUT',
      path: '/v1/datasets/:dataset_identifier/labels/:label_id',
      responses: { 200: listOf(labelSchema) },
      handler: async ({ command, params }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const label = await labelOr404(deps, labelIdOf(params.label_id, 'path.label_id'), params.label_id);
        const current = (await labelsOfDataset(deps.pool, dataset.dataset_id)).map((l) => l.id);
        return await setLabels(deps, command, dataset, [...current, label.id]);
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/datasets/:dataset_identifier/labels/:label_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const labelId = labelIdOf(params.label_id, 'path.label_id');
        const current = (await labelsOfDataset(deps.pool, dataset.dataset_id)).map((l) => l.id);
        await command(() =>
          changeDataset(
            deps.store,
            { type: 'SetDatasetLabels', datasetId: dataset.dataset_id, labelIds: current.filter((id) => id !== labelId) },
            context,
          ),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/v1/datasets/:dataset_identifier/splits',
      body: splitBody,
      responses: { 201: dataOf(splitSchema) },
      handler: async ({ body, command, params, context }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const examples = await exampleUuids(deps, dataset, body.example_ids ?? [], 'example_ids');
        const split: DatasetSplitData = {
          name: body.name,
          description: body.description ?? null,
          color: (body.color ?? '#33c5e8').toLowerCase(),
          metadata: (body.metadata ?? {}) as JsonObject,
        };
        const result = await command(() =>
          changeDatasetSplits(deps.store, { type: 'CreateDatasetSplits', splits: [split], ifAbsent: false }, context),
        );
        const splitId = (result.events[0] as { data: { splitId: number } }).data.splitId;
        if (examples.length > 0)
          await command(() =>
            changeDatasetSplits(deps.store, { type: 'ChangeSplitExamples', splitId, added: examples, removed: [] }, context),
          );
        return { data: splitJson(await splitOf(deps, dataset, toGlobalId('DatasetSplit', String(splitId)))) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/datasets/:dataset_identifier/splits/:split_id',
      body: splitPatchBody,
      responses: { 200: dataOf(splitSchema) },
      handler: async ({ body, command, params, context }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const split = await splitOf(deps, dataset, params.split_id);
        const added = await exampleUuids(deps, dataset, body.add_example_ids ?? [], 'add_example_ids');
        const removed = await exampleUuids(deps, dataset, body.remove_example_ids ?? [], 'remove_example_ids');
        const next: DatasetSplitData = {
          name: body.name ?? split.name,
          description: body.description === undefined ? split.description : body.description,
          color: (body.color ?? split.color).toLowerCase(),
          metadata: (body.metadata ?? split.metadata) as JsonObject,
        };
        await command(() => changeDatasetSplits(deps.store, { type: 'UpdateDatasetSplit', splitId: split.id, split: next }, context));
        if (added.length + removed.length > 0)
          await command(() => changeDatasetSplits(deps.store, { type: 'ChangeSplitExamples', splitId: split.id, added, removed }, context));
        return { data: splitJson(await splitOf(deps, dataset, toGlobalId('DatasetSplit', String(split.id)))) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/datasets/:dataset_identifier/splits/:split_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        const split = await splitOf(deps, dataset, params.split_id);
        await command(() => changeDatasetSplits(deps.store, { type: 'DeleteDatasetSplit', splitId: split.id }, context));
      },
    }),
  ];
};
