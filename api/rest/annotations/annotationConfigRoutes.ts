import type Koa from 'koa';
import { z } from 'zod';
import { changeAnnotationConfigs } from '../../../domain/annotations/changeAnnotationConfigs.ts';
import type { AnnotationConfigCommand } from '../../../domain/annotations/commands.ts';
import {
  findAnnotationConfig,
  listAnnotationConfigs,
  type AnnotationConfigRow,
} from '../../../projections/annotations/annotationConfigQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { HttpError } from '../../http/httpError.ts';
import { parseBody, parseQuery } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { settle } from '../../http/settle.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { tracingRoute } from '../tracing/tracingRoute.ts';
import { cursorOf } from '../../http/page.ts';
import { annotationConfigBody, annotationConfigJson, configFromJson, configRowidOf } from './annotationConfigJson.ts';

const pageQuery = z.object({ cursor: single, limit: limitParam(100) });

const configPage = (rows: readonly AnnotationConfigRow[], limit: number) => ({
  data: rows.slice(0, limit).map(annotationConfigJson),
  next_cursor: rows.length > limit ? annotationConfigJson(rows[limit]!).id : null,
});

/** A config by GlobalID (any of the three types), or by name when `byName`; 404 otherwise. */
const resolveConfig = async (deps: AppDeps, raw: string, byName: boolean): Promise<AnnotationConfigRow> => {
  const rowid = configRowidOf(raw);
  const config =
    rowid !== null
      ? await findAnnotationConfig(deps.pool, { id: rowid })
      : byName
        ? await findAnnotationConfig(deps.pool, { name: raw })
        : null;
  if (config === null) throw new HttpError(404, 'annotation_config_not_found', `Annotation config ${raw} not found`);
  return config;
};

const run = async (ctx: Koa.Context, deps: AppDeps, command: AnnotationConfigCommand) => {
  const result = await changeAnnotationConfigs(deps.store, command, commandContextOf(ctx));
  await settle(deps.runner, result.position);
  return result;
};

const configAfter = async (deps: AppDeps, configId: number) => {
  const config = await findAnnotationConfig(deps.pool, { id: configId });
  if (config === null) throw new HttpError(404, 'annotation_config_not_found', `Annotation config ${configId} not found`);
  return config;
};

const setBody = z.object({ annotation_config_ids: z.array(z.string()) });

/** The nine routes of the reference's `annotation_configs` tag. */
export const annotationConfigRoutes = (deps: AppDeps): RouteDef[] => [
  tracingRoute('GET', '/v1/annotation_configs', async (ctx) => {
    const q = parseQuery(ctx, pageQuery);
    ctx.body = configPage(await listAnnotationConfigs(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit }), q.limit);
  }),

  tracingRoute('POST', '/v1/annotation_configs', async (ctx) => {
    const config = configFromJson(parseBody(ctx, annotationConfigBody));
    const { events } = await run(ctx, deps, { type: 'CreateAnnotationConfig', config });
    ctx.body = { data: annotationConfigJson(await configAfter(deps, (events[0]!.data as { configId: number }).configId)) };
  }),

  tracingRoute('GET', '/v1/annotation_configs/:config_identifier', async (ctx) => {
    ctx.body = { data: annotationConfigJson(await resolveConfig(deps, String(ctx.params.config_identifier), true)) };
  }),

  tracingRoute('PUT', '/v1/annotation_configs/:config_id', async (ctx) => {
    const existing = await resolveConfig(deps, String(ctx.params.config_id), false);
    const config = configFromJson(parseBody(ctx, annotationConfigBody));
    await run(ctx, deps, { type: 'UpdateAnnotationConfig', configId: existing.id, config });
    ctx.body = { data: annotationConfigJson(await configAfter(deps, existing.id)) };
  }),

  tracingRoute('DELETE', '/v1/annotation_configs/:config_id', async (ctx) => {
    const existing = await resolveConfig(deps, String(ctx.params.config_id), false);
    await run(ctx, deps, { type: 'DeleteAnnotationConfig', configId: existing.id });
    // The reference answers 200 with the config it deleted.
    ctx.body = { data: annotationConfigJson(existing) };
  }),

  tracingRoute('GET', '/v1/projects/:project_identifier/annotation_configs', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const q = parseQuery(ctx, pageQuery);
    ctx.body = configPage(
      await listAnnotationConfigs(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit, projectId: project.project_id }),
      q.limit,
    );
  }),

  tracingRoute('PUT', '/v1/projects/:project_identifier/annotation_configs', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const body = parseBody(ctx, setBody);
    const configIds: number[] = [];
    for (const [i, raw] of body.annotation_config_ids.entries()) {
      const rowid = configRowidOf(raw);
      if (rowid === null || (await findAnnotationConfig(deps.pool, { id: rowid })) === null)
        throw new HttpError(
          422,
          'annotation_config_not_found',
          `body.annotation_config_ids.${i}: no annotation config has the id "${raw}"`,
        );
      configIds.push(rowid);
    }
    await run(ctx, deps, { type: 'SetProjectAnnotationConfigs', projectId: project.project_id, configIds });
    const rows = await listAnnotationConfigs(deps.pool, { cursor: null, limit: 100_000, projectId: project.project_id });
    ctx.body = { data: rows.map(annotationConfigJson), next_cursor: null };
  }),

  tracingRoute('PUT', '/v1/projects/:project_identifier/annotation_configs/:config_identifier', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const config = await resolveConfig(deps, String(ctx.params.config_identifier), true);
    await run(ctx, deps, { type: 'AssignAnnotationConfig', projectId: project.project_id, configId: config.id });
    ctx.body = { data: annotationConfigJson(config) };
  }),

  tracingRoute('DELETE', '/v1/projects/:project_identifier/annotation_configs/:config_identifier', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const config = await resolveConfig(deps, String(ctx.params.config_identifier), true);
    await run(ctx, deps, { type: 'UnassignAnnotationConfig', projectId: project.project_id, configId: config.id });
    ctx.status = 204;
  }),
];
