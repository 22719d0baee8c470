import type Koa from 'koa';
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
import { commandContextOf } from '../../http/commandContextOf.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit, type RestRequest } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { datasetLabelIdsBody, labelBody, labelJson, labelPatchBody, splitBody, splitJson, splitPatchBody } from './datasetJson.ts';
import { datasetByIdentifier } from './resolveDataset.ts';
import { anyGlobalId } from '../../http/globalId.ts';
import { shown } from '../../http/httpError.ts';

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
  ctx: Koa.Context,
  deps: AppDeps,
  command: RestRequest<unknown, unknown>['command'],
  dataset: DatasetRow,
  labelIds: number[],
) => {
  await command(() =>
    changeDataset(deps.store, { type: 'SetDatasetLabels', datasetId: dataset.dataset_id, labelIds }, commandContextOf(ctx)),
  );
  ctx.body = { data: (await labelsOfDataset(deps.pool, dataset.dataset_id)).map(labelJson) };
};

/** Dataset labels (the global vocabulary and each dataset's set) and splits. */
export const datasetLabelRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/dataset_labels',
      query: z.object({ cursor: single, limit: limitParam(100) }),
      handler: async ({ ctx, query: q, command }) => {
        const rows = await listDatasetLabels(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit });
        ctx.body = page(rows, q.limit, byRowid('DatasetLabel'), labelJson);
      },
    }),
    route({
      method: 'POST',
      path: '/v1/dataset_labels',
      body: labelBody,
      handler: async ({ ctx, body, command }) => {
        const result = await command(() =>
          changeDatasetLabels(
            deps.store,
            {
              type: 'CreateDatasetLabel',
              label: { name: body.name, color: body.color.toLowerCase(), description: body.description ?? null },
            },
            commandContextOf(ctx),
          ),
        );
        const created = result.events[0]!;
        ctx.status = 201;
        ctx.body = { data: labelJson(await labelOr404(deps, created.data.labelId, String(created.data.labelId))) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/dataset_labels/:label_id',
      handler: async ({ ctx }) => {
        ctx.body = { data: labelJson(await labelOr404(deps, labelIdOf(ctx.params.label_id!, 'path.label_id'), ctx.params.label_id!)) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/dataset_labels/:label_id',
      body: labelPatchBody,
      handler: async ({ ctx, body, command }) => {
        const label = await labelOr404(deps, labelIdOf(ctx.params.label_id!, 'path.label_id'), ctx.params.label_id!);
        if (body.name == null && body.color == null && body.description === undefined)
          throw new HttpError(422, 'invalid_body', 'body: nothing to update (name, color or description)');
        const next = {
          name: body.name ?? label.name,
          color: (body.color ?? label.color).toLowerCase(),
          description: body.description === undefined ? label.description : body.description,
        };
        await command(() =>
          changeDatasetLabels(deps.store, { type: 'UpdateDatasetLabel', labelId: label.id, label: next }, commandContextOf(ctx)),
        );
        ctx.body = { data: labelJson(await labelOr404(deps, label.id, ctx.params.label_id!)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/dataset_labels/:label_id',
      handler: async ({ ctx, command }) => {
        const label = await labelOr404(deps, labelIdOf(ctx.params.label_id!, 'path.label_id'), ctx.params.label_id!);
        await command(() => changeDatasetLabels(deps.store, { type: 'DeleteDatasetLabel', labelId: label.id }, commandContextOf(ctx)));
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:dataset_identifier/labels',
      handler: async ({ ctx }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        ctx.body = { data: (await labelsOfDataset(deps.pool, dataset.dataset_id)).map(labelJson) };
      },
    }),
    route({
      method: 'PUT',
      path: '/v1/datasets/:dataset_identifier/labels',
      body: datasetLabelIdsBody,
      handler: async ({ ctx, body, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const ids = body.dataset_label_ids.map((raw, i) => labelIdOf(raw, `body.dataset_label_ids.${i}`));
        for (const [i, id] of ids.entries()) await labelOr404(deps, id, body.dataset_label_ids[i]!);
        await setLabels(ctx, deps, command, dataset, ids);
      },
    }),
    route({
      method: 'PUT',
      path: '/v1/datasets/:dataset_identifier/labels/:label_id',
      handler: async ({ ctx, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const label = await labelOr404(deps, labelIdOf(ctx.params.label_id!, 'path.label_id'), ctx.params.label_id!);
        const current = (await labelsOfDataset(deps.pool, dataset.dataset_id)).map((l) => l.id);
        await setLabels(ctx, deps, command, dataset, [...current, label.id]);
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/datasets/:dataset_identifier/labels/:label_id',
      handler: async ({ ctx, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const labelId = labelIdOf(ctx.params.label_id!, 'path.label_id');
        const current = (await labelsOfDataset(deps.pool, dataset.dataset_id)).map((l) => l.id);
        await command(() =>
          changeDataset(
            deps.store,
            { type: 'SetDatasetLabels', datasetId: dataset.dataset_id, labelIds: current.filter((id) => id !== labelId) },
            commandContextOf(ctx),
          ),
        );
        ctx.status = 204;
      },
    }),
    route({
      method: 'POST',
      path: '/v1/datasets/:dataset_identifier/splits',
      body: splitBody,
      handler: async ({ ctx, body, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const examples = await exampleUuids(deps, dataset, body.example_ids ?? [], 'example_ids');
        const split: DatasetSplitData = {
          name: body.name,
          description: body.description ?? null,
          color: (body.color ?? '#33c5e8').toLowerCase(),
          metadata: (body.metadata ?? {}) as JsonObject,
        };
        const result = await command(() =>
          changeDatasetSplits(deps.store, { type: 'CreateDatasetSplits', splits: [split], ifAbsent: false }, commandContextOf(ctx)),
        );
        const splitId = (result.events[0] as { data: { splitId: number } }).data.splitId;
        if (examples.length > 0)
          await command(() =>
            changeDatasetSplits(deps.store, { type: 'ChangeSplitExamples', splitId, added: examples, removed: [] }, commandContextOf(ctx)),
          );
        ctx.status = 201;
        ctx.body = { data: splitJson(await splitOf(deps, dataset, toGlobalId('DatasetSplit', String(splitId)))) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/datasets/:dataset_identifier/splits/:split_id',
      body: splitPatchBody,
      handler: async ({ ctx, body, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const split = await splitOf(deps, dataset, ctx.params.split_id!);
        const added = await exampleUuids(deps, dataset, body.add_example_ids ?? [], 'add_example_ids');
        const removed = await exampleUuids(deps, dataset, body.remove_example_ids ?? [], 'remove_example_ids');
        const next: DatasetSplitData = {
          name: body.name ?? split.name,
          description: body.description === undefined ? split.description : body.description,
          color: (body.color ?? split.color).toLowerCase(),
          metadata: (body.metadata ?? split.metadata) as JsonObject,
        };
        await command(() =>
          changeDatasetSplits(deps.store, { type: 'UpdateDatasetSplit', splitId: split.id, split: next }, commandContextOf(ctx)),
        );
        if (added.length + removed.length > 0)
          await command(() =>
            changeDatasetSplits(deps.store, { type: 'ChangeSplitExamples', splitId: split.id, added, removed }, commandContextOf(ctx)),
          );
        ctx.body = { data: splitJson(await splitOf(deps, dataset, toGlobalId('DatasetSplit', String(split.id)))) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/datasets/:dataset_identifier/splits/:split_id',
      handler: async ({ ctx, command }) => {
        const dataset = await datasetByIdentifier(deps, ctx.params.dataset_identifier!);
        const split = await splitOf(deps, dataset, ctx.params.split_id!);
        await command(() => changeDatasetSplits(deps.store, { type: 'DeleteDatasetSplit', splitId: split.id }, commandContextOf(ctx)));
        ctx.status = 204;
      },
    }),
  ];
};
