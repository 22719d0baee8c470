import { z } from 'zod';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  findDatasetEvaluator,
  findEvaluator,
  listDatasetEvaluators,
  type DatasetEvaluatorRow,
} from '../../../projections/evaluators/evaluatorQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { datasetById } from '../datasets/resolveDataset.ts';
import { EVALUATOR_TYPES } from './evaluatorJson.ts';
import { datasetEvaluatorSchema } from './projectEvaluatorJson.ts';
import { changeWithFields } from './evaluatorRoutes.ts';
import { resolveEvaluatorField } from './resolveEvaluator.ts';
import { dataOf, listOf } from '../../http/responseSchemas.ts';

/** The reference's name for an evaluator used on a dataset. */
export const DATASET_EVALUATOR_TYPE = 'DatasetEvaluator';

const body = z.object({
  evaluator_id: z.string(),
  input_mapping: z
    .object({
      path_mapping: z.record(z.string(), z.string()).default({}),
      literal_mapping: z
        .record(z.string(), z.unknown())
        .default({})
        .transform((o) => o as JsonObject),
    })
    .default({ path_mapping: {}, literal_mapping: {} }),
  annotation_name: z.string().nullish(),
});

/**
 * `/v1/datasets/{id}/evaluators`: an evaluator judging, on the server, every run recorded for an
 * experiment of the dataset (whoever ran it, with or without evaluators of their own).
 */
export const datasetEvaluatorRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  const render = async (row: DatasetEvaluatorRow, datasetRowid: number) => {
    const evaluator = await findEvaluator(deps.pool, { id: row.evaluator_id });
    return {
      id: globalIdOf(DATASET_EVALUATOR_TYPE, row.id),
      dataset_id: globalIdOf('Dataset', datasetRowid),
      evaluator_id: globalIdOf(EVALUATOR_TYPES[(evaluator?.kind ?? 'CODE') as keyof typeof EVALUATOR_TYPES], row.evaluator_id),
      evaluator_name: evaluator?.name ?? null,
      annotation_name: row.annotation_name ?? evaluator?.name ?? null,
      input_mapping: { path_mapping: row.input_mapping.pathMapping, literal_mapping: row.input_mapping.literalMapping },
      created_at: row.created_at.toISOString(),
    };
  };
  const resolve = async (datasetId: string, raw: string) => {
    const rowid = rowidOf(DATASET_EVALUATOR_TYPE, raw);
    const row = rowid === null ? null : await findDatasetEvaluator(deps.pool, rowid);
    if (row === null || row.dataset_id !== datasetId)
      throw new HttpError(404, 'dataset_evaluator_not_found', `Dataset evaluator ${raw} not found`);
    return row;
  };
  return [
    route({
      method: 'GET',
      path: '/v1/datasets/:id/evaluators',
      responses: { 200: listOf(datasetEvaluatorSchema) },
      handler: async ({ params }) => {
        const dataset = await datasetById(deps, params.id!);
        return { data: await Promise.all((await listDatasetEvaluators(deps.pool, dataset.dataset_id)).map((r) => render(r, dataset.id))) };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/datasets/:id/evaluators',
      body,
      responses: { 200: dataOf(datasetEvaluatorSchema) },
      handler: async ({ params, body: b, command, context }) => {
        const dataset = await datasetById(deps, params.id!);
        const evaluator = await resolveEvaluatorField(deps.pool, b.evaluator_id, 'body.evaluator_id');
        const { events } = await command(() =>
          changeWithFields(context, deps, {
            type: 'AttachDatasetEvaluator',
            evaluatorId: evaluator.id,
            datasetId: dataset.dataset_id,
            inputMapping: { pathMapping: b.input_mapping.path_mapping, literalMapping: b.input_mapping.literal_mapping },
            annotationName: b.annotation_name ?? null,
          }),
        );
        const attached = events.find((e) => isEventOf(e, ['DatasetEvaluatorAttached']))!;
        const row = await findDatasetEvaluator(deps.pool, attached.data.datasetEvaluatorId);
        if (row === null) throw new HttpError(404, 'dataset_evaluator_not_found', 'Dataset evaluator not found');
        return { data: await render(row, dataset.id) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/datasets/:id/evaluators/:dataset_evaluator_id',
      responses: { 200: dataOf(datasetEvaluatorSchema) },
      handler: async ({ params, command, context }) => {
        const dataset = await datasetById(deps, params.id!);
        const row = await resolve(dataset.dataset_id, params.dataset_evaluator_id!);
        const shown = await render(row, dataset.id);
        await command(() => changeWithFields(context, deps, { type: 'DetachDatasetEvaluator', datasetEvaluatorId: row.id }));
        return { data: shown };
      },
    }),
  ];
};
