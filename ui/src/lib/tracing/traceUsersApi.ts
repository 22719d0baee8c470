import { http } from '../api/http.ts';

/** One user of the traced app (its spans' `user.id`) with the sums over its traces (GET /v1/projects/{id}/users). */
export type TraceUser = {
  readonly user_id: string;
  readonly trace_count: number;
  readonly session_count: number;
  readonly error_count: number;
  readonly token_count_total: number;
  readonly cost: { readonly total: number } | null;
  readonly last_seen: string;
};

export const fetchTraceUsers = async (projectId: string, signal?: AbortSignal): Promise<readonly TraceUser[]> =>
  (await http<{ data: TraceUser[] }>(`/v1/projects/${encodeURIComponent(projectId)}/users`, { signal })).data;
