import type { EvaluationFailed } from './events.ts';

/** What an erased target's failed evaluation says in place of its error (which may quote the span it judged). */
export const ERASED_ERROR = '(removed with what it judged)';

/** The span, trace and session ids an erasure removes (domain/retention/erasureDecision.ts' targets). */
export type ErasedTargets = {
  readonly spanIds: ReadonlySet<string>;
  readonly traceIds: ReadonlySet<string>;
  readonly sessionIds: ReadonlySet<string>;
};

/** Whether a failed evaluation judged one of the erased targets (a run's failure is an experiment's, never erased with spans). */
export const isFailureOnErased = (data: unknown, targets: ErasedTargets): boolean => {
  const d = data as Partial<EvaluationFailed['data']> | null;
  if (typeof d?.targetId !== 'string') return false;
  if (d.target === 'SPAN') return targets.spanIds.has(d.targetId);
  if (d.target === 'TRACE') return targets.traceIds.has(d.targetId);
  if (d.target === 'SESSION') return targets.sessionIds.has(d.targetId);
  return false;
};

/**
 * The failure as the log keeps it once its target is erased: which evaluation failed, when and
 * after how many tries stays (the evaluator's page counts it); the error text goes, since code
 * that threw or a provider that refused may have quoted the span's content in it.
 */
export const withoutFailureError = (data: EvaluationFailed['data']): EvaluationFailed['data'] => ({ ...data, error: ERASED_ERROR });
