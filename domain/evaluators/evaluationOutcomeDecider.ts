import type { AnnotationsRecorded } from '../annotations/events.ts';
import { batchProblems } from '../annotations/annotationRecord.ts';
import { InvalidAnnotationsError } from '../annotations/annotationDecider.ts';
import type { Decider } from '../decider.ts';
import type { ExperimentEvaluationRecorded } from '../experiments/events.ts';
import { experimentEvaluationDecider } from '../experiments/experimentEvaluationDecider.ts';
import type { RecordEvaluationOutcome } from './commands.ts';
import type { EvaluationFailed } from './events.ts';

/**
 * One evaluation's stream (evaluatorStream.ts): its outcome, once. The verdict is an ordinary
 * `AnnotationsRecorded` (annotator LLM or CODE), so it is shown, filtered and erased wherever
 * annotations are; a second outcome (the same work handed out again after a restart) is nothing.
 */
export const evaluationOutcomeDecider: Decider<
  boolean,
  RecordEvaluationOutcome,
  AnnotationsRecorded | EvaluationFailed | ExperimentEvaluationRecorded
> = {
  initialState: () => false,
  evolve: () => true,
  decide: (c, decided) => {
    if (decided) return [];
    if (c.type === 'RecordRunEvaluation') {
      // The experiments' own rules (name, kind, a result or an error; text made storable).
      const evaluation = experimentEvaluationDecider.decide({ type: 'RecordExperimentEvaluation', ...c.evaluation }, null);
      return c.failure === null ? evaluation : [...evaluation, { type: 'EvaluationFailed', data: c.failure }];
    }
    if (c.type === 'RecordEvaluationFailure') {
      const { type: _type, ...data } = c;
      return [{ type: 'EvaluationFailed', data }];
    }
    const problems = batchProblems([c.annotation], false);
    if (problems.length > 0) throw new InvalidAnnotationsError(problems);
    return [{ type: 'AnnotationsRecorded', data: { source: 'API', annotations: [c.annotation] } }];
  },
};
