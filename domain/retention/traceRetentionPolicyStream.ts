/** Every named trace retention policy and the project assignments: names are unique across them, and there are few. */
export const TRACE_RETENTION_POLICIES_STREAM = 'trace-retention-policies';

/**
 * The runs of the policies (TraceRetentionApplied), appended by the retention reactor without
 * a decider: nothing folds this stream, so it may grow by one event per policy per run.
 */
export const TRACE_RETENTION_RUNS_STREAM = 'trace-retention-runs';
