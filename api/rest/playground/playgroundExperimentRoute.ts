import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createExperiment } from '../../../domain/experiments/createExperiment.ts';
import { recordExperimentRun } from '../../../domain/experiments/recordExperiment.ts';
import type { Position } from '../../../domain/eventstore/types.ts';
import { exampleVariables, playgroundOutput } from '../../../domain/playground/playgroundExperiment.ts';
import { PLAYGROUND_PROJECT } from '../../../domain/playground/playgroundSpan.ts';
import type { JsonObject, JsonValue } from '../../../domain/base/jsonValue.ts';
import { examplesAtVersion, findDataset, findDatasetVersion } from '../../../projections/datasets/datasetQueries.ts';
import { findExperiment } from '../../../projections/experiments/experimentQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import type { Route } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { anyGlobalId } from '../../http/globalId.ts';
import { shown } from '../../http/httpError.ts';
import { experimentJson } from '../experiments/experimentJson.ts';
import { EVENT_STREAM, openEventStream, sse } from './eventStream.ts';
import { callAndRecord } from './playgroundCall.ts';
import { invalid, playgroundAccess, prepareRun, renderMessages, runFields, specVariables } from './playgroundRequest.ts';

/** At most this many examples are with the provider at once (a provider's rate limit is the team's). */
export const MAX_CONCURRENCY = 10;

const body = z.strictObject({
  ...runFields,
  /** The dataset (GlobalID) whose examples are run. */
  dataset_id: z.string().min(1).max(256),
  /** One of its versions (GlobalID); its latest when absent. */
  dataset_version_id: z.string().max(256).nullish(),
  /**
   * Template variable → where its value is in an example's input (a key, or a dotted path such as
   * `question.text`), or null for the value in `variables` whatever the input holds. A variable
   * not mapped takes the input key of its own name, then the value in `variables`.
   */
  variable_mapping: z.record(z.string(), z.string().trim().min(1).max(1024).nullable()).default({}),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(4),
  experiment_name: z.string().trim().min(1).max(1024).optional(),
  experiment_description: z.string().max(10_000).nullish(),
});

const datasetOf = async (deps: AppDeps, raw: string) => {
  const gid = anyGlobalId(raw);
  if (gid === null) throw invalid('invalid_dataset_id', `body.dataset_id: ${shown(raw)} is not a Dataset id`);
  const dataset = gid.type === 'Dataset' ? await findDataset(deps.pool, { id: gid.id }) : null;
  if (dataset === null) throw new HttpError(404, 'dataset_not_found', `Dataset ${shown(raw)} not found`);
  return dataset;
};

const versionOf = async (deps: AppDeps, datasetId: string, datasetName: string, raw: string | null | undefined) => {
  if (raw === undefined || raw === null || raw === '') {
    const latest = await findDatasetVersion(deps.pool, { latestOf: datasetId });
    if (latest === null) throw invalid('dataset_has_no_versions', `Dataset ${shown(datasetName)} has no versions (no examples) to run`);
    return latest;
  }
  const gid = anyGlobalId(raw);
  if (gid === null) throw invalid('invalid_version_id', `body.dataset_version_id: ${shown(raw)} is not a DatasetVersion id`);
  const version = gid.type === 'DatasetVersion' ? await findDatasetVersion(deps.pool, { id: gid.id }) : null;
  if (version === null || version.dataset_id !== datasetId)
    throw new HttpError(404, 'dataset_version_not_found', `Dataset version ${shown(raw)} not found in dataset ${shown(datasetName)}`);
  return version;
};

/**
 * `POST /v1/playground/experiments`: the prompt over every example of a dataset version, as an
 * experiment of that version with one run per example. The examples' inputs fill the template
 * variables; each example is one provider call (at most `concurrency` at once), traced into the
 * playground project like a single playground run, and recorded as the experiment's run for that
 * example: the answer as output, or the provider's refusal as the run's error. Progress is streamed
 * as Server-Sent Events: `experiment` (created, with its example count), a `run` per example as it
 * finishes, then `done`. Closing the stream stops the examples not yet started; the experiment
 * keeps what was recorded (its missing runs show as such).
 */
export const playgroundExperimentRoute = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'POST',
    path: '/v1/playground/experiments',
    body,
    responses: { 200: EVENT_STREAM },
    handler: async ({ principal, context, closed, settle, body: b, command }) => {
      const {
        dataset_id: datasetRaw,
        dataset_version_id: versionRaw,
        variable_mapping: mapping,
        concurrency,
        experiment_name: experimentName,
        experiment_description: description,
        ...run
      } = b;
      const dataset = await datasetOf(deps, datasetRaw);
      const version = await versionOf(deps, dataset.dataset_id, dataset.name, versionRaw);
      const prepared = await prepareRun(deps, run, playgroundAccess(principal));
      const spec = prepared.spec;
      const used = specVariables(spec);
      const unknown = Object.keys(mapping).filter((name) => !used.includes(name));
      if (unknown.length > 0)
        throw invalid(
          'invalid_variable_mapping',
          `body.variable_mapping: the template has no variable ${unknown.map((n) => JSON.stringify(n)).join(', ')}${used.length > 0 ? ` (it has ${used.map((n) => JSON.stringify(n)).join(', ')})` : ''}`,
        );
      const examples = await examplesAtVersion(deps.pool, { datasetId: dataset.dataset_id, versionRow: version.id });
      if (examples.length === 0)
        throw invalid('dataset_version_empty', `body.dataset_version_id: this version of ${shown(dataset.name)} has no examples to run`);

      const { experimentId } = await command(() =>
        createExperiment(
          deps.store,
          {
            datasetId: dataset.dataset_id,
            versionId: version.version_id,
            name: experimentName ?? `playground-${spec.model_name.slice(0, 40)}-${randomBytes(3).toString('hex')}`,
            description: description ?? null,
            metadata: {
              source: 'playground',
              provider: spec.provider,
              model_name: spec.model_name,
              ...(run.prompt_version_id !== undefined ? { prompt_version_id: run.prompt_version_id } : {}),
              template_format: spec.template_format,
              invocation_parameters: spec.invocation_parameters as JsonObject,
              variable_mapping: mapping,
            } as JsonObject,
            repetitions: 1,
            // The runs' traces go to the playground project, with every other playground run.
            projectName: PLAYGROUND_PROJECT,
            exampleIds: examples.map((e) => e.example_id),
          },
          context,
        ),
      );
      const experiment = await findExperiment(deps.pool, { experimentId });
      if (experiment === null) throw new HttpError(404, 'experiment_not_found', `Experiment ${experimentId} not found`);

      const { out, answer } = openEventStream();
      sse(out, { type: 'experiment', experiment: experimentJson(experiment), example_count: examples.length });

      let last: Position | null = null;
      let succeeded = 0;
      let failed = 0;
      const runOne = async (index: number): Promise<void> => {
        const example = examples[index]!;
        const variables = exampleVariables(example.input, mapping, used, spec.variables);
        const rendered = renderMessages(spec, variables);
        const started = Date.now();
        const result =
          'problem' in rendered
            ? null
            : await callAndRecord(deps, prepared, { messages: rendered.messages, variables }, context, { cancelled: closed });
        const error = 'problem' in rendered ? `example input does not fill the template: ${rendered.problem}` : result!.error;
        const output: JsonValue = result === null || result.error !== null ? null : playgroundOutput(result.text, result.toolCalls);
        const traceId = result?.recorded ? result.traceId : null;
        let runError: string | null = null;
        try {
          const recorded = await recordExperimentRun(
            deps.store,
            {
              experimentId,
              exampleId: example.example_id,
              repetition: 1,
              output,
              startTime: new Date(result?.startMs ?? started).toISOString(),
              endTime: new Date(result?.endMs ?? started).toISOString(),
              traceId,
              error,
            },
            context,
          );
          if (recorded.position !== null) last = recorded.position;
        } catch (e) {
          deps.logger.error({ err: e, requestId: context.requestId }, 'playground experiment run could not be recorded');
          runError = 'The run finished but could not be recorded in the experiment';
        }
        if (error === null && runError === null) succeeded++;
        else failed++;
        sse(out, {
          type: 'run',
          index,
          example_id: toGlobalId('DatasetExample', String(example.id)),
          input: example.input as JsonValue,
          output,
          error: runError ?? error,
          latency_ms: result === null ? 0 : result.endMs - result.startMs,
          prompt_tokens: result?.usage?.prompt ?? null,
          completion_tokens: result?.usage?.completion ?? null,
          total_tokens: result?.usage?.total ?? null,
          trace_id: traceId,
        });
      };

      // Not awaited: the stream is the answer; a few workers take the examples in order.
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < examples.length && !closed.aborted) await runOne(next++);
      };
      Promise.all(Array.from({ length: Math.min(concurrency, examples.length) }, worker))
        .then(async () => {
          // The experiment page (and a reload of this one) sees every recorded run.
          await settle(last);
          const now = await findExperiment(deps.pool, { experimentId });
          sse(out, { type: 'done', succeeded, failed, experiment: now === null ? null : experimentJson(now) });
          out.end();
        })
        .catch((e: unknown) => {
          deps.logger.error({ err: e, requestId: context.requestId }, 'playground experiment failed');
          sse(out, {
            type: 'error',
            code: 'experiment_failed',
            message: 'The experiment stopped unexpectedly; the runs recorded so far are kept',
          });
          out.end();
        });
      return answer;
    },
  });
