import { z } from 'zod';
import { changeEvaluators } from '../../../domain/evaluators/changeEvaluators.ts';
import type { EvaluatorCommand } from '../../../domain/evaluators/commands.ts';
import type { EvaluatorDefinition } from '../../../domain/evaluators/evaluatorDefinition.ts';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  countEvaluationFailures,
  findEvaluator,
  listEvaluators,
  recentEvaluationFailures,
} from '../../../projections/evaluators/evaluatorQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { cursorOf, page } from '../../http/page.ts';
import { describeIssues } from '../../http/parseBody.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { definitionFromJson, definitionJson, evaluatorBody, evaluatorJson, evaluatorSchema } from './evaluatorJson.ts';
import { resolveEvaluator } from './resolveEvaluator.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { dataOf, pageOf, isoTime } from '../../http/responseSchemas.ts';

const pageQuery = z.object({ cursor: single, limit: limitParam(100) });

/** Runs an evaluator command; a broken rule of a field is a 422 naming `body.<field>`. */
export const changeWithFields = async (context: CommandContext, deps: AppDeps, command: EvaluatorCommand) => {
  try {
    return await changeEvaluators(deps.store, command, context);
  } catch (error) {
    throw refusedAt('body.', error);
  }
};

/** Code that does not compile is refused before anything is stored. */
const checkCode = async (deps: AppDeps, definition: EvaluatorDefinition) => {
  if (definition.kind !== 'CODE') return;
  const problem = await deps.evaluators.sandbox.parseProblem(definition.sourceCode);
  if (problem !== null) throw new HttpError(422, 'invalid_evaluator', `body.source_code: the code does not parse: ${problem}`);
};

const rowAfter = async (deps: AppDeps, id: number) => {
  const row = await findEvaluator(deps.pool, { id });
  if (row === null) throw new HttpError(404, 'evaluator_not_found', `Evaluator ${id} not found`);
  return row;
};

/** `/v1/evaluators`: LLM, code and built-in evaluators, each change a new version. */
const failuresSchema = z.object({
  data: z.array(
    z.object({
      target: z.string(),
      target_id: z.string(),
      version: z.number(),
      error: z.string(),
      attempts: z.number(),
      failed_at: isoTime,
    }),
  ),
  total: z.number(),
});

export const evaluatorRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/evaluators',
      query: pageQuery,
      responses: { 200: pageOf(evaluatorSchema) },
      handler: async ({ query: q }) =>
        page(
          await listEvaluators(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit }),
          q.limit,
          (r) => evaluatorJson(r).id,
          evaluatorJson,
        ),
    }),

    route({
      method: 'POST',
      path: '/v1/evaluators',
      body: evaluatorBody,
      responses: { 200: dataOf(evaluatorSchema) },
      handler: async ({ body, command, context }) => {
        const definition = definitionFromJson(body);
        await checkCode(deps, definition);
        const { events } = await command(() => changeWithFields(context, deps, { type: 'CreateEvaluator', definition }));
        const created = events.find((e) => isEventOf(e, ['EvaluatorCreated']))!;
        return { data: evaluatorJson(await rowAfter(deps, created.data.evaluatorId)) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/evaluators/:evaluator_identifier',
      responses: { 200: dataOf(evaluatorSchema) },
      handler: async ({ params }) => ({ data: evaluatorJson(await resolveEvaluator(deps.pool, params.evaluator_identifier!)) }),
    }),

    route({
      method: 'PATCH',
      path: '/v1/evaluators/:evaluator_id',
      body: 'json',
      responses: { 200: dataOf(evaluatorSchema) },
      handler: async ({ body, command, params, context }) => {
        const existing = await resolveEvaluator(deps.pool, params.evaluator_id);
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          throw new HttpError(422, 'invalid_body', 'body: expected an object of the fields to change');
        // The fields sent replace the stored ones; the result must be a whole, valid evaluator.
        const merged = evaluatorBody.safeParse({
          ...definitionJson(existing.definition as unknown as EvaluatorDefinition),
          ...(body as object),
        });
        if (!merged.success) throw new HttpError(422, 'invalid_body', describeIssues('body', merged.error));
        const definition = definitionFromJson(merged.data);
        await checkCode(deps, definition);
        await command(() => changeWithFields(context, deps, { type: 'UpdateEvaluator', evaluatorId: existing.id, definition }));
        return { data: evaluatorJson(await rowAfter(deps, existing.id)) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/evaluators/:evaluator_id',
      responses: { 200: dataOf(evaluatorSchema) },
      handler: async ({ command, params, context }) => {
        const existing = await resolveEvaluator(deps.pool, params.evaluator_id);
        await command(() => changeWithFields(context, deps, { type: 'DeleteEvaluator', evaluatorId: existing.id }));
        return { data: evaluatorJson(existing) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/evaluators/:evaluator_id/failures',
      query: z.object({ limit: limitParam(50, 1000) }),
      responses: { 200: failuresSchema },
      handler: async ({ query, params }) => {
        const existing = await resolveEvaluator(deps.pool, params.evaluator_id);
        const rows = await recentEvaluationFailures(deps.pool, existing.id, query.limit);
        return {
          data: rows.map((r) => ({
            target: r.target,
            target_id: r.target_id,
            version: r.version,
            error: r.error,
            attempts: r.attempts,
            failed_at: r.failed_at.toISOString(),
          })),
          total: await countEvaluationFailures(deps.pool, existing.id),
        };
      },
    }),
  ];
};
