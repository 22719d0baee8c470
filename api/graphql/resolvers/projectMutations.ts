import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  createProject,
  deleteProject,
  revokeProjectGrant,
  setProjectGrant,
  updateProject,
} from '../../../domain/projects/projectCommands.ts';
import { findUser } from '../../../projections/identity/userQueries.ts';
import { findProjectById, findProjectByProjectId, type ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { fromGlobalId, rowidOf } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { projectOf } from '../tracingMappers.ts';
import { DeletionPayload } from '../deletionPayload.ts';
import { CreateProjectInput, PatchProjectInput, ProjectMutationPayload, SetProjectGrantInput } from '../types/projectTypes.ts';
import { noNul } from './inputText.ts';

const projectById = async (ctx: GraphqlContext, id: string, argument: string): Promise<ProjectRow> => {
  const rowid = rowidOf('Project', id);
  const project = rowid === null ? null : await findProjectById(ctx.deps.pool, rowid);
  if (project === null) throw gqlError('project_not_found', `Argument "${argument}": no project with id ${JSON.stringify(id)}`, 404);
  return project;
};

/** The project as the read model shows it once this process has applied the command. */
const after = async (ctx: GraphqlContext, projectId: string): Promise<ProjectMutationPayload> => {
  const row = await findProjectByProjectId(ctx.deps.pool, projectId);
  if (row === null) throw gqlError('project_not_found', 'Project not found', 404);
  return { project: projectOf(row) };
};

/** The same domain commands as REST `/v1/projects` (one write path), waited for before answering. */
@Resolver()
export class ProjectMutations {
  @Mutation(() => ProjectMutationPayload)
  @Requires('write')
  async createProject(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => CreateProjectInput) input: CreateProjectInput,
  ): Promise<ProjectMutationPayload> {
    const name = noNul(input.name, 'input.name');
    if (name.trim() === '') throw gqlError('invalid_input', 'Argument "input.name" must not be empty');
    const result = await createProject(
      ctx.deps.store,
      {
        name,
        description: input.description == null ? null : noNul(input.description, 'input.description'),
        gradientStartColor: input.gradientStartColor ?? undefined,
        gradientEndColor: input.gradientEndColor ?? undefined,
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    return after(ctx, result.events.find((e) => isEventOf(e, ['ProjectCreated']))!.data.projectId);
  }

  @Mutation(() => ProjectMutationPayload)
  @Requires('projects.manage')
  async patchProject(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => PatchProjectInput) input: PatchProjectInput,
  ): Promise<ProjectMutationPayload> {
    const project = await projectById(ctx, input.id, 'input.id');
    const result = await updateProject(
      ctx.deps.store,
      project.name,
      {
        projectId: project.project_id,
        description: input.description == null ? undefined : noNul(input.description, 'input.description'),
        gradientStartColor: input.gradientStartColor ?? undefined,
        gradientEndColor: input.gradientEndColor ?? undefined,
        restricted: input.restricted ?? undefined,
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    return after(ctx, project.project_id);
  }

  @Mutation(() => ProjectMutationPayload, { description: 'Grants a user a role on a project (their role there once it is restricted)' })
  @Requires('projects.manage')
  async setProjectGrant(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => SetProjectGrantInput) input: SetProjectGrantInput,
  ): Promise<ProjectMutationPayload> {
    const project = await projectById(ctx, input.projectId, 'input.projectId');
    const userId = fromGlobalId('User', input.userId) ?? input.userId;
    if ((await findUser(ctx.deps.pool, userId)) === null)
      throw gqlError('user_not_found', `Argument "input.userId": no user with id ${JSON.stringify(input.userId)}`, 404);
    const result = await setProjectGrant(
      ctx.deps.store,
      project.name,
      { projectId: project.project_id, userId, role: input.role },
      ctx.command,
    );
    await ctx.settle(result.position);
    return after(ctx, project.project_id);
  }

  @Mutation(() => ProjectMutationPayload, { description: "Revokes a user's grant on a project" })
  @Requires('projects.manage')
  async revokeProjectGrant(
    @Ctx() ctx: GraphqlContext,
    @Arg('projectId', () => ID) projectId: string,
    @Arg('userId', () => ID) userIdArg: string,
  ): Promise<ProjectMutationPayload> {
    const project = await projectById(ctx, projectId, 'projectId');
    const userId = fromGlobalId('User', userIdArg) ?? userIdArg;
    const result = await revokeProjectGrant(ctx.deps.store, project.name, { projectId: project.project_id, userId }, ctx.command);
    await ctx.settle(result.position);
    return after(ctx, project.project_id);
  }

  @Mutation(() => DeletionPayload, { description: 'Deletes a project and its traces (not the default project)' })
  @Requires('projects.manage')
  async deleteProject(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<DeletionPayload> {
    const project = await projectById(ctx, id, 'id');
    const result = await deleteProject(
      ctx.deps.store,
      project.name,
      { projectId: project.project_id, defaultProjectName: ctx.deps.settings.defaultProjectName },
      ctx.command,
    );
    await ctx.settle(result.position);
    return { deletedIds: [id] };
  }
}
