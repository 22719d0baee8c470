import { createHmac } from 'node:crypto';
import type { AlertRule } from './alertRule.ts';
import { changePercent } from './alertVerdict.ts';
import type { AlertStateChanged } from './events.ts';

/** What a destination is told about one transition. */
export type AlertNotice = {
  readonly alertId: string;
  readonly rule: AlertRule;
  readonly projectName: string;
  readonly state: 'FIRING' | 'RESOLVED';
  readonly transition: AlertStateChanged['data'];
  /** The project's page in the UI, absolute. */
  readonly link: string;
};

/** The webhook's JSON body (sent as these exact bytes and signed over them). */
export const webhookBody = (n: AlertNotice): string => {
  const { condition } = n.rule;
  const t = n.transition;
  return JSON.stringify({
    alert_id: n.alertId,
    name: n.rule.name,
    project: n.projectName,
    state: n.state,
    metric: n.rule.metric,
    ...(n.rule.metric === 'annotation_score' ? { annotation_name: n.rule.annotationName, annotation_label: n.rule.annotationLabel } : {}),
    value: t.value,
    ...(condition.kind === 'threshold'
      ? { op: condition.op, threshold: condition.threshold }
      : {
          baseline: t.baseline,
          change_percent: t.value === null || t.baseline === null ? null : changePercent(t.value, t.baseline),
          direction: condition.direction,
          baseline_window_seconds: condition.baselineWindowSeconds,
          condition_change_percent: condition.changePercent,
        }),
    window_start: t.windowStart,
    window_end: t.windowEnd,
    link: n.link,
  });
};

const shown = (v: number | null): string => (v === null ? 'no data' : Number.isInteger(v) ? String(v) : v.toPrecision(4));

/** Slack's incoming-webhook format: one `text` naming the alert, the project, the value and the link. */
export const slackBody = (n: AlertNotice): string => {
  const { condition } = n.rule;
  const t = n.transition;
  const against =
    condition.kind === 'threshold'
      ? `threshold ${condition.op} ${condition.threshold}`
      : `baseline ${shown(t.baseline)}, ${condition.direction} more than ${condition.changePercent} %`;
  const head = n.state === 'FIRING' ? ':rotating_light: FIRING' : ':white_check_mark: RESOLVED';
  // Slack's mrkdwn treats &, < and > as markup: escaped in the names a person typed.
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return JSON.stringify({
    text: `${head}: alert *${esc(n.rule.name)}* in project *${esc(n.projectName)}*: ${n.rule.metric} = ${shown(t.value)} (${against}) <${n.link}|Open in Loupe>`,
  });
};

/** `x-loupe-signature`: `sha256=` and the HMAC-SHA256 of the raw body under the webhook's secret, in hex. */
export const webhookSignature = (body: string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** A delivery keeps trying for at least this long after the transition (issue 37: at least 10 minutes). */
export const DELIVERY_GIVE_UP_MS = 15 * 60_000;
/** How long one attempt may take before it counts as a timeout. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The pause before attempt `attempt + 1` after `attempt` failed: 1 s doubling up to 5 minutes. */
export const retryDelayMs = (attempt: number): number => Math.min(1000 * 2 ** Math.max(0, attempt - 1), 5 * 60_000);

/** One POST to a destination, as the sender port (adapters/outbound/alertSender.ts) makes it. */
export type AlertPost = { readonly url: string; readonly body: string; readonly headers: Readonly<Record<string, string>> };

/** An answer's status, a failure to get one (timeout, network), or a refusal to call at all (an inward address). */
export type AttemptOutcome = { readonly status: number } | { readonly error: string } | { readonly refused: string };

/** Sends one notification; never throws (a failure is an outcome). Never follows a redirect. */
export type AlertSender = (post: AlertPost) => Promise<AttemptOutcome>;

/** What an attempt's outcome means: done, try again later (5xx, 408, 429, a timeout or a network error), or give up (a refusal, any other answer). */
export const attemptVerdict = (outcome: AttemptOutcome): 'delivered' | 'retry' | 'failed' => {
  if ('refused' in outcome) return 'failed';
  if ('error' in outcome) return 'retry';
  if (outcome.status >= 200 && outcome.status < 300) return 'delivered';
  if (outcome.status >= 500 || outcome.status === 408 || outcome.status === 429) return 'retry';
  return 'failed';
};
