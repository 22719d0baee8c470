import { z } from 'zod';
import type { TraceRetentionPolicyRow, TraceRetentionRunRow } from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import { isoTime } from '../../http/responseSchemas.ts';

/** The GlobalID type of a named policy: Phoenix's GraphQL name. */
export const POLICY_TYPE = 'ProjectTraceRetentionPolicy';

export const policyRowidOf = (raw: string): number | null => rowidOf(POLICY_TYPE, raw);

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** What a policy's last run expired and what the removals from the log took since. */
export const traceRetentionRunJson = (run: TraceRetentionRunRow | null) =>
  run === null
    ? null
    : {
        ran_at: iso(run.ran_at)!,
        started_before: iso(run.started_before),
        max_traces: run.max_traces,
        projects: run.projects,
        expired_traces: run.expired_traces,
        removed: { traces: run.removed_traces, spans: run.removed_spans, annotations: run.removed_annotations },
      };

/** `hidden`: restricted projects the caller has no grant on (ProjectAccess.hidden), never listed. */
export const traceRetentionPolicyJson = (row: TraceRetentionPolicyRow, hidden: readonly number[] = []) => ({
  id: globalIdOf(POLICY_TYPE, row.id),
  name: row.name,
  max_days: row.max_days,
  max_traces: row.max_traces,
  projects: row.projects.filter((p) => !hidden.includes(p.id)).map((p) => ({ id: globalIdOf('Project', p.id), name: p.name })),
  created_at: iso(row.created_at)!,
  updated_at: iso(row.updated_at)!,
  last_run: traceRetentionRunJson(row.last_run),
});

const runSchema = z
  .object({
    ran_at: isoTime,
    started_before: isoTime.nullable(),
    max_traces: z.number().nullable(),
    projects: z.number(),
    expired_traces: z.number(),
    removed: z.object({ traces: z.number(), spans: z.number(), annotations: z.number() }),
  })
  .nullable();

/** `traceRetentionPolicyJson`'s shape, as the routes declare it. */
export const traceRetentionPolicySchema = z.object({
  id: z.string(),
  name: z.string(),
  max_days: z.number().nullable(),
  max_traces: z.number().nullable(),
  projects: z.array(z.object({ id: z.string(), name: z.string() })),
  created_at: isoTime,
  updated_at: isoTime,
  last_run: runSchema,
});

/** The default policy (`SERVICE_DEFAULT_RETENTION_POLICY_DAYS`): no id, no projects of its own. */
export const defaultPolicySchema = z.object({
  name: z.string(),
  max_days: z.number().nullable(),
  max_traces: z.null(),
  last_run: runSchema,
});

/** A project's policy: its named one or the default (`policy_id` null). */
export const projectPolicySchema = z.object({
  project_id: z.string(),
  project_name: z.string(),
  policy_id: z.string().nullable(),
  policy: z.union([traceRetentionPolicySchema, defaultPolicySchema]),
});

const maxDays = z.number().nullable().optional();
const maxTraces = z.number().nullable().optional();

/** `POST /v1/trace_retention_policies`: a name and at least one rule (the domain says which field breaks a rule). */
export const createPolicyBody = z.object({ name: z.string(), max_days: maxDays, max_traces: maxTraces });

/** `PATCH /v1/trace_retention_policies/{id}`: what is sent changes; `null` clears a rule. */
export const patchPolicyBody = z.object({ name: z.string().optional(), max_days: maxDays, max_traces: maxTraces });

/** `PUT /v1/projects/{project_identifier}/trace_retention_policy`: a policy's id, or null for the default. */
export const assignPolicyBody = z.object({ policy_id: z.string().nullable() });
