import { DomainError } from '../errors.ts';

/**
 * What a trace retention policy keeps: traces that started less than `maxDays` ago and/or the
 * project's newest `maxTraces` traces (Phoenix's TraceRetentionRuleMaxDays / MaxCount /
 * MaxDaysOrCount). A trace that breaks either rule expires. At least one is set.
 */
export type TraceRetentionRule = {
  readonly maxDays: number | null;
  readonly maxTraces: number | null;
};

/** The longest a policy may keep (a thousand years): beyond it, a date calculation overflows. */
export const MAX_RETENTION_DAYS = 365_000;

/**
 * Checks a rule; a break is a DomainError whose message starts with the wire field it is about
 * (`max_days`, `max_traces`), so the edge can answer a 422 naming it.
 */
export const checkTraceRetentionRule = (rule: TraceRetentionRule): TraceRetentionRule => {
  if (rule.maxDays === null && rule.maxTraces === null)
    throw new DomainError(
      'invalid_retention_rule',
      'max_days: set max_days, max_traces or both (a policy that keeps everything is the default)',
    );
  if (rule.maxDays !== null && !(Number.isFinite(rule.maxDays) && rule.maxDays > 0 && rule.maxDays <= MAX_RETENTION_DAYS))
    throw new DomainError('invalid_retention_rule', `max_days: must be a number of days above 0 and at most ${MAX_RETENTION_DAYS}`);
  if (rule.maxTraces !== null && !(Number.isSafeInteger(rule.maxTraces) && rule.maxTraces > 0))
    throw new DomainError('invalid_retention_rule', 'max_traces: must be a whole number of traces, at least 1');
  return rule;
};
