import { DomainError } from '../errors.ts';
import { FilterError, MAX_FILTER_LENGTH, parseFilter } from '../filters/filterSyntax.ts';
import { outboundRefusal, outboundUrlProblem } from '../base/outboundUrl.ts';
import { storableText } from '../base/storableText.ts';
import {
  ALERT_METRICS,
  ALERT_NAME_MAX,
  type AlertCondition,
  type AlertMetric,
  type AlertRule,
  MAX_DESTINATIONS,
  MAX_WINDOW_SECONDS,
  MIN_EVALUATION_INTERVAL_SECONDS,
  MIN_WINDOW_SECONDS,
  NO_DATA_POLICIES,
  type NoDataPolicy,
  THRESHOLD_OPS,
  type ThresholdOp,
} from './alertRule.ts';
import { alertDestinationRule } from './alertDestinationRule.ts';

/**
 * A destination as sent, its credential in plaintext: a webhook's secret (null: keep the one stored
 * for that URL) and a Slack URL (null: keep the stored one, domain/alerts/sealDestinations.ts).
 */
export type DestinationInput =
  | { readonly type: 'webhook'; readonly url: string; readonly secret: string | null }
  | { readonly type: 'slack'; readonly url: string | null };

/** A rule as checked from a request, before its secrets are sealed. */
export type AlertRuleInput = Omit<AlertRule, 'destinations'> & { readonly destinations: readonly DestinationInput[] };

export type AlertRuleLimits = {
  /** `SERVICE_ALERTS_EVALUATION_INTERVAL_SECONDS`: a rule that names none is evaluated this often. */
  readonly defaultEvaluationIntervalSeconds: number;
  /** `SERVICE_ALERTS_ALLOWED_URLS`: prefixes of non-public URLs an operator allows. */
  readonly allowedUrls: readonly string[];
};

/** A rule break, its message led by the field (`window_seconds: must be at least 10`), as the edge answers it (422 naming it). */
export const alertRuleInvalid = (field: string, message: string): DomainError =>
  new DomainError('invalid_alert_rule', `${field}: ${message}`);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (field: string, v: unknown, max: number, required: boolean): string | null => {
  if (v === undefined || v === null) {
    if (required) throw alertRuleInvalid(field, 'is required');
    return null;
  }
  if (typeof v !== 'string') throw alertRuleInvalid(field, 'must be a string');
  const s = v.trim();
  if (required && s === '') throw alertRuleInvalid(field, 'must not be empty');
  if (storableText(s) !== s) throw alertRuleInvalid(field, 'must not contain NUL characters or unpaired UTF-16 surrogates');
  if (s.length > max) throw alertRuleInvalid(field, `must be at most ${max} characters`);
  return s;
};

const integer = (field: string, v: unknown, min: number, max: number): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw alertRuleInvalid(field, `must be a whole number of seconds of at least ${min}`);
  if (v < min) throw alertRuleInvalid(field, `must be at least ${min}`);
  if (v > max) throw alertRuleInvalid(field, `must be at most ${max}`);
  return v;
};

const finite = (field: string, v: unknown): number => {
  if (v === undefined || v === null) throw alertRuleInvalid(field, 'is required');
  if (typeof v !== 'number' || !Number.isFinite(v)) throw alertRuleInvalid(field, 'must be a number');
  return v;
};

const oneOf = <T extends string>(field: string, v: unknown, allowed: readonly T[]): T => {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    throw alertRuleInvalid(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
  return v as T;
};

const condition = (v: unknown): AlertCondition => {
  if (!isObject(v))
    throw alertRuleInvalid('condition', 'is required: {op, threshold} or {baseline_window_seconds, change_percent, direction}');
  if ('baseline_window_seconds' in v || 'change_percent' in v || 'direction' in v) {
    const changePercent = finite('condition.change_percent', v.change_percent);
    if (changePercent <= 0) throw alertRuleInvalid('condition.change_percent', 'must be more than 0');
    return {
      kind: 'regression',
      baselineWindowSeconds: integer(
        'condition.baseline_window_seconds',
        v.baseline_window_seconds,
        MIN_WINDOW_SECONDS,
        MAX_WINDOW_SECONDS,
      ),
      changePercent,
      direction: oneOf('condition.direction', v.direction, ['up', 'down'] as const),
    };
  }
  return {
    kind: 'threshold',
    op: oneOf<ThresholdOp>('condition.op', v.op, THRESHOLD_OPS),
    threshold: finite('condition.threshold', v.threshold),
  };
};

const destinations = (v: unknown, limits: AlertRuleLimits): DestinationInput[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw alertRuleInvalid('destinations', 'must be a list');
  if (v.length > MAX_DESTINATIONS) throw alertRuleInvalid('destinations', `must hold at most ${MAX_DESTINATIONS} destinations`);
  return v.map((d, i): DestinationInput => {
    const at = `destinations.${i}`;
    if (!isObject(d)) throw alertRuleInvalid(at, 'must be an object');
    const type = oneOf(`${at}.type`, d.type, ['webhook', 'slack'] as const);
    // A Slack URL is a credential the API never shows again: a rule read and sent back has none (keep the stored one).
    if (type === 'slack' && (d.url === undefined || d.url === null)) return { type, url: null };
    const raw = text(`${at}.url`, d.url, 2048, true)!;
    const rule = alertDestinationRule(limits.allowedUrls);
    const problem = outboundUrlProblem(raw, rule);
    // Not repeating the URL: a Slack URL is a credential, and refusals may be logged.
    if (problem !== null) throw alertRuleInvalid(`${at}.url`, outboundRefusal(rule, problem));
    // Kept as the URL parser spells it (`HTTP://Host/a/../b` is `http://host/b`): what was checked is what is called.
    const url = new URL(raw).href;
    if (type === 'slack') return { type, url };
    const secret = d.secret === undefined || d.secret === null ? null : text(`${at}.secret`, d.secret, 1024, true);
    return { type, url, secret };
  });
};

/** The JSON names of a rule's fields, as the API takes them. */
const FIELDS = [
  'name',
  'metric',
  'annotation_name',
  'annotation_label',
  'filter',
  'window_seconds',
  'evaluation_interval_seconds',
  'condition',
  'no_data',
  'destinations',
];

/**
 * A rule from the API's JSON (`POST`), or a change merged into the stored rule (`PATCH`: absent
 * fields keep their value). Every rule is checked here, each break named by its field: an unknown
 * metric, a window under 10 s, an interval under 5 s, a condition without its threshold,
 * `annotation_score` without `annotation_name`, a URL that is not http(s) or points inward, a
 * filter that does not parse.
 */
export const alertRuleFromJson = (body: unknown, limits: AlertRuleLimits, stored?: AlertRule): AlertRuleInput => {
  if (!isObject(body)) throw alertRuleInvalid('body', 'must be a JSON object');
  const unknown = Object.keys(body).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) throw alertRuleInvalid(unknown, 'is not a field of an alert rule');
  const has = (k: string) => body[k] !== undefined || stored === undefined;
  const metric: AlertMetric = has('metric') ? oneOf('metric', body.metric, ALERT_METRICS) : stored!.metric;
  const annotationName = has('annotation_name') ? text('annotation_name', body.annotation_name, 200, false) : stored!.annotationName;
  const annotationLabel = has('annotation_label') ? text('annotation_label', body.annotation_label, 200, false) : stored!.annotationLabel;
  if (metric === 'annotation_score' && (annotationName === null || annotationName === ''))
    throw alertRuleInvalid('annotation_name', 'is required for the annotation_score metric');
  const filter = has('filter') ? (text('filter', body.filter, MAX_FILTER_LENGTH, false) ?? '') : stored!.filter;
  if (filter !== '') {
    try {
      parseFilter(filter);
    } catch (error) {
      if (error instanceof FilterError) throw alertRuleInvalid('filter', error.message);
      throw error;
    }
  }
  const noData: NoDataPolicy = has('no_data')
    ? body.no_data === undefined
      ? 'OK'
      : oneOf('no_data', body.no_data, NO_DATA_POLICIES)
    : stored!.noData;
  return {
    name: has('name') ? text('name', body.name, ALERT_NAME_MAX, true)! : stored!.name,
    metric,
    annotationName: metric === 'annotation_score' ? annotationName : null,
    annotationLabel: metric === 'annotation_score' ? annotationLabel : null,
    filter,
    windowSeconds: has('window_seconds')
      ? integer('window_seconds', body.window_seconds, MIN_WINDOW_SECONDS, MAX_WINDOW_SECONDS)
      : stored!.windowSeconds,
    evaluationIntervalSeconds: has('evaluation_interval_seconds')
      ? body.evaluation_interval_seconds === undefined
        ? limits.defaultEvaluationIntervalSeconds
        : integer('evaluation_interval_seconds', body.evaluation_interval_seconds, MIN_EVALUATION_INTERVAL_SECONDS, 86_400)
      : stored!.evaluationIntervalSeconds,
    condition: has('condition') ? condition(body.condition) : stored!.condition,
    noData,
    destinations: has('destinations')
      ? destinations(body.destinations, limits)
      : stored!.destinations.map((d) => (d.type === 'webhook' ? { type: d.type, url: d.url, secret: null } : { type: d.type, url: null })),
  };
};
