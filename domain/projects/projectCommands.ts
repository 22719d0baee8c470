import { randomUUID } from 'node:crypto';
import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { CreateProject, DeleteProject, RevokeProjectGrant, SetProjectGrant, UpdateProject } from './commands.ts';
import type { ProjectEvent } from './events.ts';
import { projectDecider } from './projectDecider.ts';
import { projectStream } from './projectStream.ts';

/** Throws `project_exists` (conflict) when the name is taken. */
export const createProject = (
  store: EventStore,
  input: Omit<CreateProject, 'type' | 'projectId' | 'ifAbsent'>,
  context: CommandContext,
): Promise<CommandResult<ProjectEvent>> =>
  handleCommand(store, projectStream(input.name), projectDecider, { type: 'CreateProject', projectId: randomUUID(), ...input }, context);

/** `name` locates the stream; `projectId` makes sure it is still the same project. */
export const updateProject = (
  store: EventStore,
  name: string,
  input: Omit<UpdateProject, 'type'>,
  context: CommandContext,
): Promise<CommandResult<ProjectEvent>> =>
  handleCommand(store, projectStream(name), projectDecider, { type: 'UpdateProject', ...input }, context);

/** Throws `default_project` (forbidden) for the default project, `project_not_found` when gone. */
export const deleteProject = (
  store: EventStore,
  name: string,
  input: Omit<DeleteProject, 'type'>,
  context: CommandContext,
): Promise<CommandResult<ProjectEvent>> =>
  handleCommand(store, projectStream(name), projectDecider, { type: 'DeleteProject', ...input }, context);

/** Throws `invalid_role` (422) for a role outside GRANT_ROLES; the same role again appends nothing. */
export const setProjectGrant = (
  store: EventStore,
  name: string,
  input: Omit<SetProjectGrant, 'type'>,
  context: CommandContext,
): Promise<CommandResult<ProjectEvent>> =>
  handleCommand(store, projectStream(name), projectDecider, { type: 'SetProjectGrant', ...input }, context);

/** Throws `grant_not_found` (404) when the user holds no grant there. */
export const revokeProjectGrant = (
  store: EventStore,
  name: string,
  input: Omit<RevokeProjectGrant, 'type'>,
  context: CommandContext,
): Promise<CommandResult<ProjectEvent>> =>
  handleCommand(store, projectStream(name), projectDecider, { type: 'RevokeProjectGrant', ...input }, context);
