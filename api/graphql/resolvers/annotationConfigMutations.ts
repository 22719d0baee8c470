import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { changeAnnotationConfigs } from '../../../domain/annotations/changeAnnotationConfigs.ts';
import type { AnnotationConfigCommand } from '../../../domain/annotations/commands.ts';
import type { AnnotationConfigEvent } from '../../../domain/annotations/events.ts';
import { findAnnotationConfig, listAnnotationConfigs } from '../../../projections/annotations/annotationConfigQueries.ts';
import { annotationConfigBody, configFromJson, configRowidOf } from '../../rest/annotations/annotationConfigJson.ts';
import { rowidOf } from '../../http/globalId.ts';
import { findProjectById, findProjectByName } from '../../../projections/projects/projectQueries.ts';
import { annotationConfigOf } from '../annotationMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { AnnotationConfig, AnnotationConfigInput } from '../types/annotationTypes.ts';

/** The GraphQL input as REST's body, checked by the same schema (422 naming the field). */
const configOf = (input: AnnotationConfigInput) => {
  const parsed = annotationConfigBody.safeParse({
    type: input.type,
    name: input.name,
    description: input.description,
    optimization_direction: input.optimizationDirection ?? undefined,
    ...(input.values != null ? { values: input.values.map((v) => ({ label: v.label, score: v.score ?? null })) } : {}),
    lower_bound: input.lowerBound,
    upper_bound: input.upperBound,
    threshold: input.threshold,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw gqlError('invalid_input', `Argument "input.${issue.path.join('.')}": ${issue.message}`, 422);
  }
  return configFromJson(parsed.data);
};

const configIdOf = async (ctx: GraphqlContext, id: string, argument: string): Promise<number> => {
  const rowid = configRowidOf(id);
  if (rowid === null || (await findAnnotationConfig(ctx.deps.pool, { id: rowid })) === null)
    throw gqlError('annotation_config_not_found', `Argument "${argument}": no annotation config ${id}`, 404);
  return rowid;
};

const run = async (ctx: GraphqlContext, command: AnnotationConfigCommand) => {
  const result = await changeAnnotationConfigs(ctx.deps.store, command, ctx.command);
  await ctx.settle(result.position);
  return result.events as readonly AnnotationConfigEvent[];
};

const shown = async (ctx: GraphqlContext, configId: number): Promise<AnnotationConfig> => {
  const row = await findAnnotationConfig(ctx.deps.pool, { id: configId });
  if (row === null) throw gqlError('annotation_config_not_found', `No annotation config ${configId}`, 404);
  return annotationConfigOf(row);
};

/** The same commands as REST's /v1/annotation_configs routes (the settings page). */
@Resolver()
export class AnnotationConfigMutations {
  @Mutation(() => AnnotationConfig)
  @Requires('write')
  async createAnnotationConfig(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => AnnotationConfigInput) input: AnnotationConfigInput,
  ): Promise<AnnotationConfig> {
    const events = await run(ctx, { type: 'CreateAnnotationConfig', config: configOf(input) });
    return shown(ctx, (events[0]!.data as { configId: number }).configId);
  }

  @Mutation(() => AnnotationConfig, { description: 'A full replacement' })
  @Requires('write')
  async updateAnnotationConfig(
    @Ctx() ctx: GraphqlContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => AnnotationConfigInput) input: AnnotationConfigInput,
  ): Promise<AnnotationConfig> {
    const configId = await configIdOf(ctx, id, 'id');
    await run(ctx, { type: 'UpdateAnnotationConfig', configId, config: configOf(input) });
    return shown(ctx, configId);
  }

  @Mutation(() => AnnotationConfig, { description: 'Returns the config it deleted' })
  @Requires('write')
  async deleteAnnotationConfig(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<AnnotationConfig> {
    const configId = await configIdOf(ctx, id, 'id');
    const before = await shown(ctx, configId);
    await run(ctx, { type: 'DeleteAnnotationConfig', configId });
    return before;
  }

  @Mutation(() => [AnnotationConfig], { description: 'Replaces the whole set of configs assigned to the project' })
  @Requires('write')
  async setProjectAnnotationConfigs(
    @Ctx() ctx: GraphqlContext,
    @Arg('projectId', () => ID, { description: 'Project global id or name' }) projectId: string,
    @Arg('configIds', () => [ID]) configIds: string[],
  ): Promise<AnnotationConfig[]> {
    const rowid = rowidOf('Project', projectId);
    const project = rowid !== null ? await findProjectById(ctx.deps.pool, rowid) : await findProjectByName(ctx.deps.pool, projectId);
    if (project === null) throw gqlError('project_not_found', `Argument "projectId": no project ${projectId}`, 404);
    const ids: number[] = [];
    for (const [i, id] of configIds.entries()) ids.push(await configIdOf(ctx, id, `configIds.${i}`));
    await run(ctx, { type: 'SetProjectAnnotationConfigs', projectId: project.project_id, configIds: ids });
    return (await listAnnotationConfigs(ctx.deps.pool, { cursor: null, limit: 10_000, projectId: project.project_id })).map(
      annotationConfigOf,
    );
  }
}
