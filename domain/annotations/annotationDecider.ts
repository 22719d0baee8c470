import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { checkStorableTime } from '../base/storableTime.ts';
import { activeProject, evolveProject } from '../projects/projectDecider.ts';
import type { ProjectEvent } from '../projects/events.ts';
import type { ProjectState } from '../projects/projectState.ts';
import { batchProblems, type AnnotationProblem } from './annotationRecord.ts';
import type { DeleteAnnotations, RecordAnnotations, RemoveAnnotations } from './commands.ts';
import type { AnnotationsDeleted, AnnotationsRecorded, AnnotationsRemoved } from './events.ts';

/** Thrown with every problem of the request, each naming the annotation's index and field. */
export class InvalidAnnotationsError extends DomainError {
  constructor(readonly problems: readonly { readonly index: number; readonly problem: AnnotationProblem }[]) {
    super(
      'invalid_annotation',
      problems
        .slice(0, 5)
        .map(({ index, problem }) => `data.${index}.${problem.path.join('.')}: ${problem.message}`)
        .join('; '),
    );
  }
}

/**
 * Recording annotations needs no state: each request is its own stream, and the upsert by
 * (target, name, identifier) is the read model's, in log order. The rules are per annotation;
 * one broken annotation refuses the whole request (nothing acknowledged is ever dropped).
 */
export const annotationDecider: Decider<null, RecordAnnotations | RemoveAnnotations, AnnotationsRecorded | AnnotationsRemoved> = {
  initialState: () => null,
  evolve: (state) => state,
  decide: (c) => {
    if (c.type === 'RemoveAnnotations')
      return c.annotations.length === 0 ? [] : [{ type: 'AnnotationsRemoved', data: { annotations: c.annotations } }];
    const problems = batchProblems(c.annotations, c.asNotes);
    if (problems.length > 0) throw new InvalidAnnotationsError(problems);
    if (c.annotations.length === 0) return [];
    return [{ type: 'AnnotationsRecorded', data: { source: c.source, annotations: c.annotations } }];
  },
};

/** Deleting is judged against the project's lifecycle, like deleting its telemetry. */
export const annotationDeletionDecider: Decider<ProjectState, DeleteAnnotations, ProjectEvent | AnnotationsDeleted> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveProject,
  decide: (c, state) => {
    const { projectId } = activeProject(state, c.projectId);
    // Checked, not rewritten: the edge's times keep their microseconds.
    if (c.createdFrom !== null) checkStorableTime('start_time', c.createdFrom, 'invalid_time_range');
    if (c.createdBefore !== null) checkStorableTime('end_time', c.createdBefore, 'invalid_time_range');
    if (c.createdFrom !== null && c.createdBefore !== null && !(Date.parse(c.createdFrom) < Date.parse(c.createdBefore)))
      throw new DomainError('invalid_time_range', 'start_time must be before end_time');
    const { type: _type, ...data } = c;
    return [{ type: 'AnnotationsDeleted', data: { ...data, projectId } }];
  },
};
