import type { Decider, DomainEvent } from '../decider.ts';
import { GRANT_ROLES, isGrantRole } from '../access/grantRole.ts';
import { DomainError } from '../errors.ts';
import { loupeEvent } from '../loupeEvent.ts';
import type { ProjectCommand, UpdateProject } from './commands.ts';
import type { ProjectEvent, ProjectUpdated } from './events.ts';
import { DEFAULT_GRADIENT_END_COLOR, DEFAULT_GRADIENT_START_COLOR, isHexColor } from './projectColors.ts';
import { projectNotFound } from './projectErrors.ts';
import { projectNameProblem } from './projectName.ts';
import { MESSAGE_MAX_BYTES, storableText } from '../base/storableText.ts';
import type { ActiveProject, ProjectState } from './projectState.ts';

/** Stored as sent, so it must be text Postgres can hold (the projector would otherwise replace it). */
const checkDescription = (value: string | null | undefined): void => {
  if (typeof value !== 'string') return;
  if (storableText(value) !== value)
    throw new DomainError('invalid_description', 'description must not contain NUL characters or unpaired UTF-16 surrogates');
  if (Buffer.byteLength(value, 'utf8') > MESSAGE_MAX_BYTES)
    throw new DomainError('invalid_description', `description must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`);
};

const checkColor = (field: string, value: string | undefined): void => {
  if (value !== undefined && !isHexColor(value)) throw new DomainError('invalid_color', `${field} must be a colour like #1c76fc`);
};

/** The active project the command addresses; a deleted or re-created one is "not found". */
export const activeProject = (state: ProjectState, projectId: string): ActiveProject => {
  if (state.status !== 'active' || state.projectId !== projectId) throw projectNotFound(projectId);
  return state;
};

const changes = (c: UpdateProject, p: ActiveProject): ProjectUpdated['data'] => ({
  projectId: p.projectId,
  ...(c.description !== undefined && c.description !== p.description ? { description: c.description } : {}),
  ...(c.gradientStartColor !== undefined && c.gradientStartColor !== p.gradientStartColor
    ? { gradientStartColor: c.gradientStartColor }
    : {}),
  ...(c.gradientEndColor !== undefined && c.gradientEndColor !== p.gradientEndColor ? { gradientEndColor: c.gradientEndColor } : {}),
});

const decide = (c: ProjectCommand, state: ProjectState): ProjectEvent[] => {
  switch (c.type) {
    case 'CreateProject': {
      const nameProblem = projectNameProblem(c.name);
      if (nameProblem !== null) throw new DomainError('invalid_project_name', nameProblem);
      checkDescription(c.description);
      checkColor('gradient_start_color', c.gradientStartColor);
      checkColor('gradient_end_color', c.gradientEndColor);
      if (state.status === 'active') {
        if (c.ifAbsent) return [];
        throw new DomainError('project_exists', `A project named "${c.name}" already exists`, 'conflict');
      }
      return [
        {
          type: 'ProjectCreated',
          data: {
            projectId: c.projectId,
            name: c.name,
            description: c.description,
            gradientStartColor: c.gradientStartColor ?? DEFAULT_GRADIENT_START_COLOR,
            gradientEndColor: c.gradientEndColor ?? DEFAULT_GRADIENT_END_COLOR,
          },
        },
      ];
    }
    case 'UpdateProject': {
      const project = activeProject(state, c.projectId);
      checkDescription(c.description);
      checkColor('gradient_start_color', c.gradientStartColor);
      checkColor('gradient_end_color', c.gradientEndColor);
      const data = changes(c, project);
      return [
        ...(Object.keys(data).length > 1 ? [{ type: 'ProjectUpdated' as const, data }] : []),
        ...(c.restricted !== undefined && c.restricted !== project.restricted
          ? [{ type: 'ProjectRestrictionSet' as const, data: { projectId: project.projectId, restricted: c.restricted } }]
          : []),
      ];
    }
    case 'SetProjectGrant': {
      const project = activeProject(state, c.projectId);
      if (!isGrantRole(c.role))
        throw new DomainError('invalid_role', `role must be one of ${GRANT_ROLES.join(', ')}, got ${JSON.stringify(c.role)}`);
      if (project.grants[c.userId] === c.role) return [];
      return [{ type: 'ProjectGrantSet', data: { projectId: project.projectId, userId: c.userId, role: c.role } }];
    }
    case 'RevokeProjectGrant': {
      const project = activeProject(state, c.projectId);
      if (project.grants[c.userId] === undefined)
        throw new DomainError('grant_not_found', `User ${c.userId} holds no grant on this project`, 'not_found');
      return [{ type: 'ProjectGrantRevoked', data: { projectId: project.projectId, userId: c.userId } }];
    }
    case 'DeleteProject': {
      const project = activeProject(state, c.projectId);
      if (project.name === c.defaultProjectName)
        throw new DomainError('default_project', 'The default project cannot be deleted', 'forbidden');
      return [{ type: 'ProjectDeleted', data: { projectId: project.projectId, name: project.name } }];
    }
  }
};

/** Any event: the deciders that share the project stream (telemetry deletion, annotations) fold it with this too. */
export const evolveProject = (state: ProjectState, event: DomainEvent): ProjectState => {
  const e = loupeEvent(event);
  switch (e.type) {
    case 'ProjectCreated':
      return { status: 'active', ...e.data, restricted: false, grants: {} };
    case 'ProjectUpdated':
      return state.status === 'active' && state.projectId === e.data.projectId ? { ...state, ...e.data } : state;
    case 'ProjectRestrictionSet':
      return state.status === 'active' && state.projectId === e.data.projectId ? { ...state, restricted: e.data.restricted } : state;
    case 'ProjectGrantSet':
      return state.status === 'active' && state.projectId === e.data.projectId
        ? { ...state, grants: { ...state.grants, [e.data.userId]: e.data.role } }
        : state;
    case 'ProjectGrantRevoked': {
      if (state.status !== 'active' || state.projectId !== e.data.projectId) return state;
      const { [e.data.userId]: _revoked, ...grants } = state.grants;
      return { ...state, grants };
    }
    case 'ProjectDeleted':
      return { status: 'deleted', projectId: e.data.projectId, name: e.data.name };
    default:
      // The stream holds only project events; anything else leaves the state alone.
      return state;
  }
};

/**
 * A project's lifecycle. Its stream is keyed by the project's name (names never change), so
 * appending `ProjectCreated` with the revision read is what makes names unique: of two
 * concurrent creations exactly one lands, the other is decided again and refused (or, for
 * ingest's `ifAbsent`, finds the project and does nothing).
 */
export const projectDecider: Decider<ProjectState, ProjectCommand, ProjectEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveProject,
  decide,
};
