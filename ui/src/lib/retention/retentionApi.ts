import { http } from '../api/http.ts';

export type RetentionRun = {
  readonly ran_at: string;
  readonly started_before: string | null;
  readonly max_traces: number | null;
  readonly projects: number;
  readonly expired_traces: number;
  readonly removed: { readonly traces: number; readonly spans: number; readonly annotations: number };
};

export type RetentionPolicy = {
  readonly id: string;
  readonly name: string;
  readonly max_days: number | null;
  readonly max_traces: number | null;
  readonly projects: readonly { readonly id: string; readonly name: string }[];
  readonly last_run: RetentionRun | null;
};

export type DefaultRetentionPolicy = {
  readonly name: string;
  readonly max_days: number | null;
  readonly max_traces: null;
  readonly last_run: RetentionRun | null;
};

export type RetentionPolicies = { readonly policies: RetentionPolicy[]; readonly defaultPolicy: DefaultRetentionPolicy };

/** Every named policy (by name) and the default one (SERVICE_DEFAULT_RETENTION_POLICY_DAYS). */
export const fetchRetentionPolicies = async (signal?: AbortSignal): Promise<RetentionPolicies> => {
  const body = await http<{ data: RetentionPolicy[]; default_policy: DefaultRetentionPolicy }>('/v1/trace_retention_policies', { signal });
  return { policies: body.data, defaultPolicy: body.default_policy };
};

export type RetentionRule = { readonly name: string; readonly maxDays: number | null; readonly maxTraces: number | null };

const bodyOf = (rule: RetentionRule) => ({ name: rule.name, max_days: rule.maxDays, max_traces: rule.maxTraces });

export const createRetentionPolicy = (rule: RetentionRule) =>
  http<{ data: RetentionPolicy }>('/v1/trace_retention_policies', { method: 'POST', json: bodyOf(rule) });

export const updateRetentionPolicy = (id: string, rule: RetentionRule) =>
  http<{ data: RetentionPolicy }>(`/v1/trace_retention_policies/${encodeURIComponent(id)}`, { method: 'PATCH', json: bodyOf(rule) });

export const deleteRetentionPolicy = (id: string) => http(`/v1/trace_retention_policies/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** The project's named policy id, or null when it has the default. */
export const fetchProjectRetentionPolicy = async (projectId: string, signal?: AbortSignal): Promise<string | null> =>
  (await http<{ data: { policy_id: string | null } }>(`/v1/projects/${encodeURIComponent(projectId)}/trace_retention_policy`, { signal }))
    .data.policy_id;

export const setProjectRetentionPolicy = (projectId: string, policyId: string | null) =>
  http(`/v1/projects/${encodeURIComponent(projectId)}/trace_retention_policy`, { method: 'PUT', json: { policy_id: policyId } });

/** "7 days", "the newest 1,000 traces", "7 days or the newest 1,000 traces", "kept for ever". */
export const describeRule = (p: { readonly max_days: number | null; readonly max_traces: number | null }): string => {
  const days = p.max_days === null ? null : `${p.max_days} ${p.max_days === 1 ? 'day' : 'days'}`;
  const traces = p.max_traces === null ? null : `the newest ${p.max_traces.toLocaleString('en-US')} traces`;
  if (days && traces) return `${days}, at most ${traces}`;
  return days ?? (traces ? `${traces}` : 'kept for ever');
};
