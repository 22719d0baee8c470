import { http } from '../api/http.ts';

export type AlertCondition =
  | { readonly op: '>' | '>=' | '<' | '<='; readonly threshold: number }
  | { readonly baseline_window_seconds: number; readonly change_percent: number; readonly direction: 'up' | 'down' };

/** A webhook shows its URL (its secret only as set); Slack only its host (its URL is the credential). */
export type AlertDestination =
  | { readonly type: 'webhook'; readonly url: string; readonly secret_set: boolean }
  | { readonly type: 'slack'; readonly url_set: boolean; readonly host: string };

export type AlertRule = {
  readonly id: string;
  readonly name: string;
  readonly metric: string;
  readonly annotation_name: string | null;
  readonly filter: string;
  readonly window_seconds: number;
  readonly evaluation_interval_seconds: number;
  readonly condition: AlertCondition;
  readonly no_data: 'OK' | 'KEEP' | 'ALERT';
  readonly destinations: readonly AlertDestination[];
  readonly state: 'OK' | 'FIRING' | 'NO_DATA';
  readonly state_since: string;
  readonly last_value: number | null;
  readonly last_baseline: number | null;
  readonly last_evaluated_at: string | null;
};

export type AlertHistory = {
  readonly transitions: readonly {
    from: string;
    to: string;
    value: number | null;
    baseline: number | null;
    window_start: string;
    window_end: string;
    at: string;
  }[];
  readonly deliveries: readonly {
    id: string;
    type: string;
    notification: string;
    status: string;
    attempts: readonly { attempt: number; at: string; status_code: number | null; error: string | null }[];
    next_attempt_at: string | null;
    created_at: string;
  }[];
};

const base = (projectId: string) => `/v1/projects/${encodeURIComponent(projectId)}/alerts`;

export const fetchAlertRules = async (projectId: string, signal?: AbortSignal): Promise<readonly AlertRule[]> =>
  (await http<{ data: AlertRule[] }>(base(projectId), { signal })).data;

export const fetchAlertRule = async (projectId: string, alertId: string, signal?: AbortSignal): Promise<AlertRule> =>
  (await http<{ data: AlertRule }>(`${base(projectId)}/${encodeURIComponent(alertId)}`, { signal })).data;

export const fetchAlertHistory = async (projectId: string, alertId: string, signal?: AbortSignal): Promise<AlertHistory> =>
  (await http<{ data: AlertHistory }>(`${base(projectId)}/${encodeURIComponent(alertId)}/history`, { signal })).data;

/** The rule as the REST API takes it; a break comes back as a 422 naming the field. */
export const createAlertRule = async (projectId: string, rule: Record<string, unknown>): Promise<AlertRule> =>
  (await http<{ data: AlertRule }>(base(projectId), { method: 'POST', json: rule })).data;

export const deleteAlertRule = (projectId: string, alertId: string) =>
  http(`${base(projectId)}/${encodeURIComponent(alertId)}`, { method: 'DELETE' });

/** The condition in words: `> 0.2`, or `up 100 % vs the previous 60 s`. */
export const conditionText = (c: AlertCondition): string =>
  'op' in c ? `${c.op} ${c.threshold}` : `${c.direction} ${c.change_percent} % vs the previous ${c.baseline_window_seconds} s`;

/** A destination in words: `webhook https://hooks.example.com/loupe`, `slack hooks.slack.com`. */
export const destinationText = (d: AlertDestination): string => (d.type === 'webhook' ? `webhook ${d.url}` : `slack ${d.host}`);
