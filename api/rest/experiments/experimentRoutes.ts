import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createExperiment } from '../../../domain/experiments/createExperiment.ts';
import { changeExperiment, recordExperimentEvaluation, recordExperimentRun } from '../../../domain/experiments/recordExperiment.ts';
import { changeDataset } from '../../../domain/datasets/changeDataset.ts';
import type { JsonObject, JsonValue } from '../../../domain/base/jsonValue.ts';
import { examplesAtVersion, findExperimentTag, tagsOfExperiment } from '../../../projections/datasets/datasetQueries.ts';
import {
  evaluationsOfExperiment,
  experimentExample,
  experimentExport,
  findExperiment,
  findExperimentEvaluation,
  findExperimentRun,
  incompleteEvaluations,
  incompleteRuns,
  listExperimentRuns,
  listExperiments,
  type ExperimentRow,
} from '../../../projections/experiments/experimentQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { isoTimeParam, limitParam, repeated, single } from '../../http/queryParams.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { datasetById, splitsOf, versionOf } from '../datasets/resolveDataset.ts';
import { anyGlobalId } from '../../http/globalId.ts';
import { shown } from '../../http/httpError.ts';
import { costJson, costSchema } from '../../http/costJson.ts';
import {
  createExperimentBody,
  createRunBody,
  evaluationBody,
  evaluationJson,
  evaluationSchema,
  experimentJson,
  experimentSchema,
  patchExperimentBody,
  runExampleJson,
  runExampleSchema,
  runGid,
  runJson,
  runSchema,
  tagBody,
  tagJson,
  tagSchema,
} from './experimentJson.ts';
import { NO_CONTENT, answer, raw, rawBody, attachmentNamed } from '../../http/answer.ts';
import { dataOf, listOf, pageOf, isoTime } from '../../http/responseSchemas.ts';

/** An experiment by GlobalID: 422 when `raw` is none, 404 when unknown. */
const experimentById = async (deps: AppDeps, raw: string): Promise<ExperimentRow> => {
  const gid = anyGlobalId(raw);
  if (gid === null) throw new HttpError(422, 'invalid_experiment_id', `path.experiment_id: ${shown(raw)} is not an Experiment id`);
  const experiment = gid.type === 'Experiment' ? await findExperiment(deps.pool, { id: gid.id }) : null;
  if (experiment === null) throw new HttpError(404, 'experiment_not_found', `Experiment ${shown(raw)} not found`);
  return experiment;
};

/** An ISO time of the body as Postgres takes it; 422 naming the field otherwise. */
const bodyTime = (field: string, raw: string): string => {
  const parsed = isoTimeParam.safeParse(raw);
  if (!parsed.success || parsed.data === undefined)
    throw new HttpError(422, 'invalid_body', `body.${field}: ${shown(raw)} is not an ISO-8601 date-time`);
  return parsed.data;
};

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** The reference's `experiments` routes: experiments, runs, resume, evaluations, exports. */
const idOnly = z.object({ data: z.object({ id: z.string() }) });
/** `GET /v1/experiments/{id}/json`: one entry per run, its example and evaluations beside it. */
const exportedRun = z.object({
  example_id: z.string(),
  repetition_number: z.number(),
  input: z.unknown(),
  reference_output: z.unknown(),
  output: z.unknown(),
  error: z.string().nullable(),
  latency_ms: z.number(),
  start_time: isoTime,
  end_time: isoTime,
  trace_id: z.string().nullable(),
  prompt_token_count: z.number().nullable(),
  completion_token_count: z.number().nullable(),
  cost: costSchema,
  annotations: z.array(evaluationSchema),
});

export const experimentRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'POST',
      path: '/v1/datasets/:dataset_id/experiments',
      body: createExperimentBody,
      responses: { 200: dataOf(experimentSchema) },
      handler: async ({ body, command, params, context }) => {
        const dataset = await datasetById(deps, params.dataset_id, 'dataset_id');
        const version = await versionOf(deps, dataset, body.version_id ?? undefined);
        const splits = await splitsOf(deps, dataset.dataset_id, body.splits ?? undefined);
        const examples = await examplesAtVersion(deps.pool, {
          datasetId: dataset.dataset_id,
          versionRow: version.id,
          splitIds: splits.ids,
        });
        const { experimentId } = await command(() =>
          createExperiment(
            deps.store,
            {
              datasetId: dataset.dataset_id,
              versionId: version.version_id,
              name: body.name ?? `${dataset.name.slice(0, 8).replaceAll(' ', '-')}-${randomBytes(4).toString('hex')}`,
              description: body.description ?? null,
              metadata: (body.metadata ?? {}) as JsonObject,
              repetitions: body.repetitions ?? 1,
              // The task's traces go to a project of the experiment's own (the client's suggestion is ignored, as in the reference).
              projectName: `Experiment-${randomBytes(12).toString('hex')}`,
              exampleIds: examples.map((e) => e.example_id),
            },
            context,
          ),
        );
        const experiment = await findExperiment(deps.pool, { experimentId });
        if (experiment === null) throw new HttpError(404, 'experiment_not_found', `Experiment ${experimentId} not found`);
        return { data: experimentJson(experiment) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/datasets/:dataset_id/experiments',
      query: z.object({ cursor: single, limit: limitParam(50) }),
      responses: { 200: pageOf(experimentSchema) },
      handler: async ({ query: q, params }) => {
        const dataset = await datasetById(deps, params.dataset_id, 'dataset_id');
        const rows = await listExperiments(deps.pool, { datasetId: dataset.dataset_id, cursor: cursorOf(q.cursor), limit: q.limit });
        return page(rows, q.limit, byRowid('Experiment'), experimentJson);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id',
      responses: { 200: dataOf(experimentSchema) },
      handler: async ({ params }) => {
        return { data: experimentJson(await experimentById(deps, params.experiment_id)) };
      },
    }),

    route({
      method: 'PATCH',
      path: '/v1/experiments/:experiment_id',
      body: patchExperimentBody,
      responses: { 200: dataOf(experimentSchema) },
      handler: async ({ body, command, params, context }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        await command(() =>
          changeExperiment(
            deps.store,
            {
              type: 'UpdateExperiment',
              experimentId: experiment.experiment_id,
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.description !== undefined ? { description: body.description } : {}),
              ...(body.metadata !== undefined ? { metadata: body.metadata as JsonObject } : {}),
            },
            context,
          ),
        );
        return { data: experimentJson((await findExperiment(deps.pool, { id: experiment.id })) ?? experiment) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/experiments/:experiment_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        await command(() => changeExperiment(deps.store, { type: 'DeleteExperiment', experimentId: experiment.experiment_id }, context));
      },
    }),

    route({
      method: 'POST',
      path: '/v1/experiments/:experiment_id/runs',
      body: createRunBody,
      responses: { 200: idOnly },
      handler: async ({ body, command, params, context }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const gid = anyGlobalId(body.dataset_example_id);
        if (gid === null || gid.type !== 'DatasetExample')
          throw new HttpError(422, 'invalid_body', `body.dataset_example_id: ${shown(body.dataset_example_id)} is not a DatasetExample id`);
        const exampleId = await experimentExample(deps.pool, experiment.experiment_id, gid.id);
        if (exampleId === null)
          throw new HttpError(
            422,
            'example_not_in_experiment',
            `body.dataset_example_id: example ${shown(body.dataset_example_id)} is not one of the experiment's examples (its dataset version and splits)`,
          );
        if (body.repetition_number > experiment.repetitions)
          throw new HttpError(422, 'invalid_body', `body.repetition_number: the experiment has ${experiment.repetitions} repetition(s)`);
        const result = await command(() =>
          recordExperimentRun(
            deps.store,
            {
              experimentId: experiment.experiment_id,
              exampleId,
              repetition: body.repetition_number,
              output: (body.output ?? null) as JsonValue,
              startTime: bodyTime('start_time', body.start_time),
              endTime: bodyTime('end_time', body.end_time),
              traceId: body.trace_id ?? null,
              error: body.error ?? null,
            },
            context,
          ),
        );
        const runRow = await findExperimentRun(deps.pool, { runId: result.events[0]!.data.runId });
        if (runRow === null) throw new HttpError(404, 'experiment_not_found', `Experiment ${shown(params.experiment_id)} not found`);
        return { data: { id: runGid(runRow.id) } };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/runs',
      query: z.object({ cursor: single, limit: single }),
      responses: { 200: pageOf(runSchema) },
      handler: async ({ query: q, params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const limit = q.limit === undefined ? null : limitParam(1).parse(q.limit);
        const rows = await listExperimentRuns(deps.pool, { experimentId: experiment.experiment_id, cursor: cursorOf(q.cursor), limit });
        return limit === null ? { data: rows.map(runJson), next_cursor: null } : page(rows, limit, byRowid('ExperimentRun'), runJson);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/incomplete-runs',
      query: z.object({ cursor: single, limit: limitParam(50) }),
      responses: { 200: pageOf(z.object({ dataset_example: runExampleSchema, repetition_numbers: z.array(z.number()) })) },
      handler: async ({ query: q, params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const rows = await incompleteRuns(deps.pool, {
          experimentId: experiment.experiment_id,
          cursor: cursorOf(q.cursor),
          limit: q.limit,
        });
        return {
          data: rows.slice(0, q.limit).map((r) => ({ dataset_example: runExampleJson(r), repetition_numbers: r.repetitions })),
          next_cursor: rows.length > q.limit ? toGlobalId('DatasetExample', String(rows[q.limit]!.ex_rowid)) : null,
        };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/incomplete-evaluations',
      query: z.object({ evaluation_name: repeated, cursor: single, limit: limitParam(50) }),
      responses: {
        200: pageOf(z.object({ experiment_run: runSchema, dataset_example: runExampleSchema, evaluation_names: z.array(z.string()) })),
      },
      handler: async ({ query: q, params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const names = (q.evaluation_name ?? []).filter((n) => n !== '');
        if (names.length === 0)
          throw new HttpError(400, 'missing_evaluation_name', 'query.evaluation_name: at least one evaluation name is required');
        const rows = await incompleteEvaluations(deps.pool, {
          experimentId: experiment.experiment_id,
          names,
          cursor: cursorOf(q.cursor),
          limit: q.limit,
        });
        return {
          data: rows
            .slice(0, q.limit)
            .map((r) => ({ experiment_run: runJson(r), dataset_example: runExampleJson(r), evaluation_names: r.missing })),
          next_cursor: rows.length > q.limit ? runGid(rows[q.limit]!.id) : null,
        };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/experiment_evaluations',
      body: evaluationBody,
      responses: { 200: idOnly },
      handler: async ({ body, command, context }) => {
        const gid = anyGlobalId(body.experiment_run_id);
        if (gid === null)
          throw new HttpError(422, 'invalid_body', `body.experiment_run_id: ${shown(body.experiment_run_id)} is not an ExperimentRun id`);
        const runRow = gid.type === 'ExperimentRun' ? await findExperimentRun(deps.pool, { id: gid.id }) : null;
        if (runRow === null)
          throw new HttpError(404, 'experiment_run_not_found', `Experiment run ${shown(body.experiment_run_id)} not found`);
        if (body.result == null && body.error == null)
          throw new HttpError(422, 'invalid_body', 'body: an evaluation needs a result or an error');
        await command(() =>
          recordExperimentEvaluation(
            deps.store,
            {
              experimentId: runRow.experiment_id,
              runId: runRow.run_id,
              name: body.name,
              annotatorKind: body.annotator_kind,
              label: body.result?.label ?? null,
              score: body.result?.score ?? null,
              explanation: body.result?.explanation ?? null,
              error: body.error ?? null,
              metadata: (body.metadata ?? {}) as JsonObject,
              traceId: body.trace_id ?? null,
              startTime: bodyTime('start_time', body.start_time),
              endTime: bodyTime('end_time', body.end_time),
            },
            context,
          ),
        );
        const evaluation = await findExperimentEvaluation(deps.pool, runRow.run_id, body.name);
        if (evaluation === null)
          throw new HttpError(404, 'experiment_run_not_found', `Experiment run ${shown(body.experiment_run_id)} not found`);
        return { data: { id: toGlobalId('ExperimentEvaluation', String(evaluation.id)) } };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/tags',
      responses: { 200: listOf(tagSchema) },
      handler: async ({ params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        return { data: (await tagsOfExperiment(deps.pool, experiment.experiment_id)).map(tagJson) };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/experiments/:experiment_id/tags',
      body: tagBody,
      responses: { 200: dataOf(tagSchema) },
      handler: async ({ body, command, params, context }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        await command(() =>
          changeDataset(
            deps.store,
            {
              type: 'SetExperimentTag',
              datasetId: experiment.dataset_id,
              name: body.name,
              experimentId: experiment.experiment_id,
              description: body.description ?? null,
            },
            context,
          ),
        ).catch((error: unknown) => {
          // A tag name the domain refuses is a rule of the body: 422 naming the field, as the reference.
          throw refusedAt('body.', error);
        });
        const tag = await findExperimentTag(deps.pool, experiment.dataset_id, { name: body.name });
        if (tag === null) throw new HttpError(404, 'experiment_not_found', `Experiment ${shown(params.experiment_id)} not found`);
        return { data: tagJson(tag) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/experiments/:experiment_id/tags/:tag_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const raw = params.tag_identifier;
        const gid = anyGlobalId(raw);
        const tag = await findExperimentTag(
          deps.pool,
          experiment.dataset_id,
          gid?.type === 'ExperimentTag' ? { id: gid.id } : { name: raw },
        );
        if (tag !== null)
          await command(() =>
            changeDataset(
              deps.store,
              { type: 'RemoveExperimentTag', datasetId: experiment.dataset_id, name: tag.name, experimentId: experiment.experiment_id },
              context,
            ),
          );
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/json',
      responses: { 200: z.array(exportedRun) },
      handler: async ({ params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const rows = await experimentExport(deps.pool, experiment.experiment_id);
        if (rows.length === 0) throw new HttpError(404, 'experiment_has_no_runs', `Experiment ${shown(params.experiment_id)} has no runs`);
        const evaluations = await evaluationsOfExperiment(deps.pool, experiment.experiment_id);
        const runs = rows.map((r) => ({
          example_id: toGlobalId('DatasetExample', String(r.ex_rowid)),
          repetition_number: r.repetition,
          input: r.ex_input,
          reference_output: r.ex_output,
          output: r.output,
          error: r.error,
          latency_ms: Number(r.end_us - r.start_us) / 1000,
          start_time: isoFromMicros(r.start_us),
          end_time: isoFromMicros(r.end_us),
          trace_id: r.trace_id,
          prompt_token_count: r.prompt_tokens,
          completion_token_count: r.completion_tokens,
          cost: costJson(r),
          annotations: evaluations.filter((e) => e.run_id === r.run_id).map(evaluationJson),
        }));
        return answer(200, runs, attachmentNamed(`${experiment.name}.json`));
      },
    }),

    route({
      method: 'GET',
      path: '/v1/experiments/:experiment_id/csv',
      responses: { 200: rawBody('text/csv') },
      handler: async ({ params }) => {
        const experiment = await experimentById(deps, params.experiment_id);
        const rows = await experimentExport(deps.pool, experiment.experiment_id);
        const evaluations = await evaluationsOfExperiment(deps.pool, experiment.experiment_id);
        const names = [...new Set(evaluations.map((e) => e.name))].sort();
        const header = [
          'example_id',
          'repetition_number',
          'input',
          'reference_output',
          'output',
          'error',
          'latency_ms',
          'start_time',
          'end_time',
          'trace_id',
          ...names.flatMap((n) => [`annotation_${n}_label`, `annotation_${n}_score`, `annotation_${n}_explanation`]),
        ];
        const lines = rows.map((r) => {
          const own = evaluations.filter((e) => e.run_id === r.run_id);
          return [
            toGlobalId('DatasetExample', String(r.ex_rowid)),
            r.repetition,
            r.ex_input,
            r.ex_output,
            r.output,
            r.error,
            Number(r.end_us - r.start_us) / 1000,
            isoFromMicros(r.start_us),
            isoFromMicros(r.end_us),
            r.trace_id,
            ...names.flatMap((n) => {
              const e = own.find((x) => x.name === n);
              return [e?.label ?? null, e?.score ?? null, e?.explanation ?? null];
            }),
          ]
            .map(csvCell)
            .join(',');
        });
        return raw({
          type: 'text/csv',
          body: `${[header.join(','), ...lines].join('\n')}\n`,
          headers: attachmentNamed(`${experiment.name}.csv`),
        });
      },
    }),
  ];
};
