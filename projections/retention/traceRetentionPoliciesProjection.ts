import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { storedText } from '../../domain/base/textRule.ts';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';

/**
 * Named trace retention policies, which project has which, and each policy's last run: the
 * run's own record (TraceRetentionApplied) plus what the removals naming the policy took since
 * (ContentRemoved of kind retention). A removal is counted once: the run row keeps the position
 * of the last one it counted, so applying a batch again adds nothing.
 */
export const traceRetentionPoliciesProjection: Projection = {
  name: 'trace_retention_policies',
  tables: ['trace_retention_policies', 'project_trace_retention_policies', 'trace_retention_runs'],
  eventTypes: [
    'TraceRetentionPolicyCreated',
    'TraceRetentionPolicyChanged',
    'TraceRetentionPolicyDeleted',
    'ProjectTraceRetentionPolicySet',
    'ProjectDeleted',
    'TraceRetentionApplied',
    'ContentRemoved',
  ],
  migrations: [
    {
      id: 'trace_retention_policies/0001_policies',
      sql: `
        CREATE TABLE trace_retention_policies (
          policy_id bigint PRIMARY KEY,
          name text NOT NULL,
          max_days double precision,
          max_traces bigint,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE TABLE project_trace_retention_policies (
          project_id uuid PRIMARY KEY,
          policy_id bigint NOT NULL
        );
        CREATE INDEX project_trace_retention_policies_policy ON project_trace_retention_policies (policy_id);
        -- one row per policy id ('default' included): its last run and what the removals took since
        CREATE TABLE trace_retention_runs (
          policy_id text PRIMARY KEY,
          ran_at timestamptz NOT NULL,
          started_before timestamptz,
          max_traces bigint,
          projects integer NOT NULL,
          expired_traces integer NOT NULL,
          removed_traces integer NOT NULL DEFAULT 0,
          removed_spans integer NOT NULL DEFAULT 0,
          removed_annotations integer NOT NULL DEFAULT 0,
          -- the run's position, then the last removal counted
          counted_tx bigint NOT NULL,
          counted_seq bigint NOT NULL
        );
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const stored of events) await applyOne(tx, stored);
  },
};

const applyOne = async (tx: DatabaseTransactionConnection, stored: StoredEvent): Promise<void> => {
  const event = loupeEvent(stored);
  const at = stored.metadata.time;
  const { tx: ptx, seq } = stored.position;
  switch (event.type) {
    case 'TraceRetentionPolicyCreated':
    case 'TraceRetentionPolicyChanged': {
      const d = event.data;
      await tx.query(sql.unsafe`
        INSERT INTO trace_retention_policies (policy_id, name, max_days, max_traces, created_at, updated_at)
        VALUES (${d.policyId}, ${storedText(d.name, 200)}, ${d.maxDays}, ${d.maxTraces}, ${at}::timestamptz, ${at}::timestamptz)
        ON CONFLICT (policy_id) DO UPDATE SET name = EXCLUDED.name, max_days = EXCLUDED.max_days, max_traces = EXCLUDED.max_traces,
          updated_at = EXCLUDED.updated_at`);
      return;
    }
    case 'TraceRetentionPolicyDeleted':
      await tx.query(sql.unsafe`DELETE FROM trace_retention_policies WHERE policy_id = ${event.data.policyId}`);
      await tx.query(sql.unsafe`DELETE FROM project_trace_retention_policies WHERE policy_id = ${event.data.policyId}`);
      await tx.query(sql.unsafe`DELETE FROM trace_retention_runs WHERE policy_id = ${String(event.data.policyId)}`);
      return;
    case 'ProjectTraceRetentionPolicySet':
      if (event.data.policyId === null)
        await tx.query(sql.unsafe`DELETE FROM project_trace_retention_policies WHERE project_id = ${event.data.projectId}::uuid`);
      else
        await tx.query(sql.unsafe`
          INSERT INTO project_trace_retention_policies (project_id, policy_id) VALUES (${event.data.projectId}::uuid, ${event.data.policyId})
          ON CONFLICT (project_id) DO UPDATE SET policy_id = EXCLUDED.policy_id`);
      return;
    case 'ProjectDeleted':
      await tx.query(sql.unsafe`DELETE FROM project_trace_retention_policies WHERE project_id = ${event.data.projectId}::uuid`);
      return;
    case 'TraceRetentionApplied': {
      const d = event.data;
      await tx.query(sql.unsafe`
        INSERT INTO trace_retention_runs (policy_id, ran_at, started_before, max_traces, projects, expired_traces, counted_tx, counted_seq)
        VALUES (${d.policyId}, ${d.ranAt}::timestamptz, ${d.startedBefore}::timestamptz, ${d.maxTraces}, ${d.projects}, ${d.expiredTraces}, ${ptx}, ${seq})
        ON CONFLICT (policy_id) DO UPDATE SET ran_at = EXCLUDED.ran_at, started_before = EXCLUDED.started_before,
          max_traces = EXCLUDED.max_traces, projects = EXCLUDED.projects, expired_traces = EXCLUDED.expired_traces,
          removed_traces = 0, removed_spans = 0, removed_annotations = 0, counted_tx = EXCLUDED.counted_tx, counted_seq = EXCLUDED.counted_seq
        WHERE (trace_retention_runs.counted_tx, trace_retention_runs.counted_seq) < (EXCLUDED.counted_tx, EXCLUDED.counted_seq)`);
      return;
    }
    case 'ContentRemoved': {
      const d = event.data;
      if (d.kind !== 'retention' || d.policyId === null) return;
      await tx.query(sql.unsafe`
        UPDATE trace_retention_runs SET removed_traces = removed_traces + ${d.traceIds.length},
          removed_spans = removed_spans + ${d.removed.spans}, removed_annotations = removed_annotations + ${d.removed.annotations},
          counted_tx = ${ptx}, counted_seq = ${seq}
        WHERE policy_id = ${d.policyId} AND (counted_tx, counted_seq) < (${ptx}, ${seq})`);
      return;
    }
    default:
      return;
  }
};
