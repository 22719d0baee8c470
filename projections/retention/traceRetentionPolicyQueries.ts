import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

// timestamptz arrives as epoch milliseconds (the pool's type parsers)
const runRow = z.object({
  policy_id: z.string(),
  ran_at: z.number(),
  started_before: z.number().nullable(),
  max_traces: z.number().nullable(),
  projects: z.number(),
  expired_traces: z.number(),
  removed_traces: z.number(),
  removed_spans: z.number(),
  removed_annotations: z.number(),
});

export type TraceRetentionRunRow = z.infer<typeof runRow>;

const policyRow = z.object({
  id: z.bigint().transform(Number),
  name: z.string(),
  max_days: z.number().nullable(),
  max_traces: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  /** The projects that have it (row id and name), by name. */
  projects: z.array(z.object({ id: z.number(), name: z.string() })),
  last_run: runRow.nullable(),
});

export type TraceRetentionPolicyRow = z.infer<typeof policyRow>;

const policySelect = sql.fragment`
  SELECT p.policy_id AS id, p.name, p.max_days, p.max_traces::float8 AS max_traces, p.created_at, p.updated_at,
    coalesce((SELECT json_agg(json_build_object('id', pr.id, 'name', pr.name) ORDER BY pr.name)
      FROM project_trace_retention_policies a JOIN projects pr ON pr.project_id = a.project_id
      WHERE a.policy_id = p.policy_id), '[]'::json) AS projects,
    (SELECT json_build_object('policy_id', r.policy_id,
        'ran_at', (extract(epoch FROM r.ran_at) * 1000)::float8,
        'started_before', (extract(epoch FROM r.started_before) * 1000)::float8,
        'max_traces', r.max_traces::float8, 'projects', r.projects, 'expired_traces', r.expired_traces,
        'removed_traces', r.removed_traces, 'removed_spans', r.removed_spans, 'removed_annotations', r.removed_annotations)
      FROM trace_retention_runs r WHERE r.policy_id = p.policy_id::text) AS last_run
  FROM trace_retention_policies p`;

/** Every named policy, by name (there are few: the list is not paged). */
export const listTraceRetentionPolicies = (db: CommonQueryMethods): Promise<readonly TraceRetentionPolicyRow[]> =>
  db.any(sql.type(policyRow)`${policySelect} ORDER BY p.name, p.policy_id`);

export const findTraceRetentionPolicy = (db: CommonQueryMethods, policyId: number): Promise<TraceRetentionPolicyRow | null> =>
  db.maybeOne(sql.type(policyRow)`${policySelect} WHERE p.policy_id = ${policyId}`);

/** The named policy a project has (its id), or null: the default. */
export const projectTraceRetentionPolicyId = async (db: CommonQueryMethods, projectId: string): Promise<number | null> =>
  db.maybeOneFirst(sql.type(z.object({ policy_id: z.bigint().transform(Number) }))`
    SELECT policy_id FROM project_trace_retention_policies WHERE project_id = ${projectId}::uuid`);

/** A policy's last run (`default` for the default policy), or null when it never ran. */
export const lastTraceRetentionRun = (db: CommonQueryMethods, policyId: string): Promise<TraceRetentionRunRow | null> =>
  db.maybeOne(sql.type(runRow)`
    SELECT policy_id, ran_at, started_before, max_traces::float8 AS max_traces, projects, expired_traces, removed_traces, removed_spans, removed_annotations
    FROM trace_retention_runs WHERE policy_id = ${policyId}`);

const effectiveRow = z.object({
  id: z.bigint().transform(Number),
  project_id: z.string(),
  name: z.string(),
  policy_id: z.bigint().transform(Number).nullable(),
  max_days: z.number().nullable(),
  max_traces: z.number().nullable(),
});

export type ProjectRetention = z.infer<typeof effectiveRow>;

/** Every project with its named policy's rule (policy_id null: the project has the default). */
export const projectsWithRetention = (db: CommonQueryMethods): Promise<readonly ProjectRetention[]> =>
  db.any(sql.type(effectiveRow)`
    SELECT pr.id, pr.project_id::text, pr.name, p.policy_id, p.max_days, p.max_traces::float8 AS max_traces
    FROM projects pr
    LEFT JOIN project_trace_retention_policies a ON a.project_id = pr.project_id
    LEFT JOIN trace_retention_policies p ON p.policy_id = a.policy_id
    ORDER BY pr.id`);
