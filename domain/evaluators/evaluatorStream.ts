import { createHash } from 'node:crypto';

/** Every evaluator and every project's use of one: names are unique, ids handed out in order, and there are few. */
export const EVALUATORS_STREAM = 'evaluators';

/**
 * One stream per evaluation (attachment, evaluator version, target): its first event is its
 * outcome, and a second outcome is refused, so a target is judged once per evaluator version
 * however often a restart or a takeover hands the work out again.
 */
export const evaluationStream = (key: {
  readonly attachmentId: number;
  readonly version: number;
  readonly target: string;
  readonly targetId: string;
}): string =>
  `evaluation-${createHash('sha256').update(`${key.attachmentId}\u0000${key.version}\u0000${key.target}\u0000${key.targetId}`).digest('hex').slice(0, 40)}`;
