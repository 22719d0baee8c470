import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { ProjectCommand, UpdateProject } from './commands.ts';
import type { ProjectEvent, ProjectUpdated } from './events.ts';
import { DEFAULT_GRADIENT_END_COLOR, DEFAULT_GRADIENT_START_COLOR, isHexColor } from './projectColors.ts';
import { projectNotFound } from './projectErrors.ts';
import type { ActiveProject, ProjectState } from './projectState.ts';

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
  ...(c.gradientStartColor !== undefined && c.gradientStartColor !== p.gradientStartColor ? { gradientStartColor: c.gradientStartColor } : {}),
  ...(c.gradientEndColor !== undefined && c.gradientEndColor !== p.gradientEndColor ? { gradientEndColor: c.gradientEndColor } : {}),
});

const decide = (c: ProjectCommand, state: ProjectState): ProjectEvent[] => {
  switch (c.type) {
    case 'CreateProject': {
      if (c.name.trim() === '') throw new DomainError('invalid_project_name', 'A project name must not be empty');
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
      checkColor('gradient_start_color', c.gradientStartColor);
      checkColor('gradient_end_color', c.gradientEndColor);
      const data = changes(c, project);
      return Object.keys(data).length > 1 ? [{ type: 'ProjectUpdated', data }] : [];
    }
    case 'DeleteProject': {
      const project = activeProject(state, c.projectId);
      if (project.name === c.defaultProjectName) throw new DomainError('default_project', 'The default project cannot be deleted', 'forbidden');
      return [{ type: 'ProjectDeleted', data: { projectId: project.projectId, name: project.name } }];
    }
  }
};

export const evolveProject = (state: ProjectState, event: { readonly type: string; readonly data: unknown }): ProjectState => {
  const e = event as ProjectEvent;
  switch (e.type) {
    case 'ProjectCreated':
      return { status: 'active', ...e.data };
    case 'ProjectUpdated':
      return state.status === 'active' && state.projectId === e.data.projectId ? { ...state, ...e.data } : state;
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
