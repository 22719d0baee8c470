import { z } from 'zod';
import { changeAnnotationConfigs } from '../../../domain/annotations/changeAnnotationConfigs.ts';
import type { AnnotationConfigCommand } from '../../../domain/annotations/commands.ts';
import {
  findAnnotationConfig,
  listAnnotationConfigs,
  type AnnotationConfigRow,
} from '../../../projections/annotations/annotationConfigQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { cursorOf, page } from '../../http/page.ts';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  annotationConfigBody,
  annotationConfigJson,
  annotationConfigSchema,
  configFromJson,
  configRowidOf,
} from './annotationConfigJson.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';

const pageQuery = z.object({ cursor: single, limit: limitParam(100) });

const configPage = (rows: readonly AnnotationConfigRow[], limit: number) =>
  page(rows, limit, (row) => annotationConfigJson(row).id, annotationConfigJson);

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

const change = (context: CommandContext, deps: AppDeps, command: AnnotationConfigCommand) =>
  changeAnnotationConfigs(deps.store, command, context);

const configAfter = async (deps: AppDeps, configId: number) => {
  const config = await findAnnotationConfig(deps.pool, { id: configId });
  if (config === null) throw new HttpError(404, 'annotation_config_not_found', `Annotation config ${configId} not found`);
  return config;
};

const setBody = z.object({ annotation_config_ids: z.array(z.string()) });

/** The nine routes of the reference's `annotation_configs` tag. */
export const annotationConfigRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/annotation_configs',
      query: pageQuery,
      responses: { 200: pageOf(annotationConfigSchema) },
      handler: async ({ query: q }) => {
        return configPage(await listAnnotationConfigs(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit }), q.limit);
      },
    }),

    route({
      method: 'POST',
      path: '/v1/annotation_configs',
      body: annotationConfigBody,
      responses: { 200: dataOf(annotationConfigSchema) },
      handler: async ({ body, command, context }) => {
        const { events } = await command(() => change(context, deps, { type: 'CreateAnnotationConfig', config: configFromJson(body) }));
        const created = events.find((e) => isEventOf(e, ['AnnotationConfigCreated']))!;
        return { data: annotationConfigJson(await configAfter(deps, created.data.configId)) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/annotation_configs/:config_identifier',
      responses: { 200: dataOf(annotationConfigSchema) },
      handler: async ({ params }) => {
        return { data: annotationConfigJson(await resolveConfig(deps, params.config_identifier, true)) };
      },
    }),

    route({
      method: 'PUT',
      path: '/v1/annotation_configs/:config_id',
      body: annotationConfigBody,
      responses: { 200: dataOf(annotationConfigSchema) },
      handler: async ({ body, command, params, context }) => {
        const existing = await resolveConfig(deps, params.config_id, false);
        await command(() => change(context, deps, { type: 'UpdateAnnotationConfig', configId: existing.id, config: configFromJson(body) }));
        return { data: annotationConfigJson(await configAfter(deps, existing.id)) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/annotation_configs/:config_id',
      responses: { 200: dataOf(annotationConfigSchema) },
      handler: async ({ command, params, context }) => {
        const existing = await resolveConfig(deps, params.config_id, false);
        await command(() => change(context, deps, { type: 'DeleteAnnotationConfig', configId: existing.id }));
        // The reference answers 200 with the config it deleted.
        return { data: annotationConfigJson(existing) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/annotation_configs',
      query: pageQuery,
      responses: { 200: pageOf(annotationConfigSchema) },
      handler: async ({ requireProject, query: q, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        return configPage(
          await listAnnotationConfigs(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit, projectId: project.project_id }),
          q.limit,
        );
      },
    }),

    route({
      method: 'PUT',
      path: '/v1/projects/:project_identifier/annotation_configs',
      body: setBody,
      responses: { 200: pageOf(annotationConfigSchema) },
      handler: async ({ requireProject, body, command, params, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
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
        await command(() => change(context, deps, { type: 'SetProjectAnnotationConfigs', projectId: project.project_id, configIds }));
        const rows = await listAnnotationConfigs(deps.pool, { cursor: null, limit: 100_000, projectId: project.project_id });
        return { data: rows.map(annotationConfigJson), next_cursor: null };
      },
    }),

    route({
      method: 'PUT',
      path: '/v1/projects/:project_identifier/annotation_configs/:config_identifier',
      responses: { 200: dataOf(annotationConfigSchema) },
      handler: async ({ requireProject, command, params, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        const config = await resolveConfig(deps, params.config_identifier, true);
        await command(() => change(context, deps, { type: 'AssignAnnotationConfig', projectId: project.project_id, configId: config.id }));
        return { data: annotationConfigJson(config) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/projects/:project_identifier/annotation_configs/:config_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ requireProject, command, params, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        const config = await resolveConfig(deps, params.config_identifier, true);
        await command(() =>
          change(context, deps, { type: 'UnassignAnnotationConfig', projectId: project.project_id, configId: config.id }),
        );
      },
    }),
  ];
};
