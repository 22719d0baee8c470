import type { TraceRetentionPolicyRow, TraceRetentionRunRow } from '../../projections/retention/traceRetentionPolicyQueries.ts';
import { globalIdOf } from '../http/globalId.ts';
import { POLICY_TYPE } from '../rest/retention/traceRetentionPolicyJson.ts';
import { ProjectTraceRetentionPolicy, TraceRetentionRun } from './types/retentionTypes.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const traceRetentionRunOf = (run: TraceRetentionRunRow | null): TraceRetentionRun | null =>
  run === null
    ? null
    : Object.assign(new TraceRetentionRun(), {
        ranAt: iso(run.ran_at)!,
        startedBefore: iso(run.started_before),
        maxTraces: run.max_traces,
        projects: run.projects,
        expiredTraces: run.expired_traces,
        removedTraces: run.removed_traces,
        removedSpans: run.removed_spans,
        removedAnnotations: run.removed_annotations,
      });

export const traceRetentionPolicyOf = (row: TraceRetentionPolicyRow): ProjectTraceRetentionPolicy =>
  Object.assign(new ProjectTraceRetentionPolicy(), {
    id: globalIdOf(POLICY_TYPE, row.id),
    rowid: row.id,
    projectRowids: row.projects.map((p) => p.id),
    name: row.name,
    maxDays: row.max_days,
    maxTraces: row.max_traces,
    lastRun: traceRetentionRunOf(row.last_run),
  });
