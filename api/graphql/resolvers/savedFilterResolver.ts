import { randomUUID } from 'node:crypto';
import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { deleteSavedFilter, saveFilter } from '../../../domain/savedFilters/savedFilterCommands.ts';
import { findProjectById } from '../../../projections/projects/projectQueries.ts';
import { findSavedFilter, listSavedFilters, type SavedFilterRow } from '../../../projections/savedFilters/savedFilterQueries.ts';
import { rowidOf } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { DeletionPayload } from '../deletionPayload.ts';
import { FilterSubjectKind, SavedFilter, SaveFilterInput } from '../types/filterTypes.ts';
import { Project } from '../types/tracingTypes.ts';

const savedFilterOf = (row: SavedFilterRow): SavedFilter => ({
  id: row.filter_id,
  name: row.name,
  subject: row.subject as FilterSubjectKind,
  condition: row.condition,
  search: row.search,
});

@Resolver(() => Project)
export class ProjectSavedFilterResolver {
  @FieldResolver(() => [SavedFilter], { description: 'Saved filters of this project, most recently saved first' })
  async savedFilters(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('subject', () => FilterSubjectKind, { nullable: true }) subject?: FilterSubjectKind | null,
  ): Promise<SavedFilter[]> {
    const row = await findProjectById(ctx.deps.pool, project.rowid);
    if (row === null) return [];
    return (await listSavedFilters(ctx.deps.pool, row.project_id, subject ?? null)).map(savedFilterOf);
  }
}

/** Saving and deleting a project's named filters: writers (the permission table's `write`). */
@Resolver()
export class SavedFilterMutations {
  @Mutation(() => SavedFilter)
  @Requires('write')
  async saveFilter(@Ctx() ctx: GraphqlContext, @Arg('input', () => SaveFilterInput) input: SaveFilterInput): Promise<SavedFilter> {
    const rowid = rowidOf('Project', input.projectId);
    const project = rowid === null ? null : await findProjectById(ctx.deps.pool, rowid);
    if (project === null)
      throw gqlError('project_not_found', `Argument "input.projectId": no project with id ${JSON.stringify(input.projectId)}`, 404);
    const result = await saveFilter(
      ctx.deps.store,
      {
        filterId: randomUUID(),
        projectId: project.project_id,
        name: input.name,
        subject: input.subject,
        condition: input.condition,
        search: input.search,
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    const saved = (await listSavedFilters(ctx.deps.pool, project.project_id, input.subject)).find((f) => f.name === input.name.trim());
    if (saved === undefined) throw gqlError('saved_filter_not_found', 'The saved filter is not visible yet; retry', 503);
    return savedFilterOf(saved);
  }

  @Mutation(() => DeletionPayload)
  @Requires('write')
  async deleteSavedFilter(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<DeletionPayload> {
    const saved = await findSavedFilter(ctx.deps.pool, id);
    if (saved === null) throw gqlError('saved_filter_not_found', `Saved filter not found: ${JSON.stringify(id)}`, 404);
    const result = await deleteSavedFilter(ctx.deps.store, { projectId: saved.project_id, filterId: saved.filter_id }, ctx.command);
    await ctx.settle(result.position);
    return { deletedIds: [saved.filter_id] };
  }
}
