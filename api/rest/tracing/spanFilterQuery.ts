import { z } from 'zod';
import type { JsonScalar } from '../../../domain/base/jsonValue.ts';
import { OPENINFERENCE_SPAN_KINDS } from '../../../domain/tracing/openInferenceSpanKind.ts';
import { storableText } from '../../../domain/base/storableText.ts';
import { SPAN_STATUS_CODES } from '../../../domain/tracing/events.ts';
import { isoTimeParam, limitParam, repeated, single } from '../../http/queryParams.ts';

const upperIn = (allowed: readonly string[], parameter: string) =>
  repeated.transform((values, refinement) => {
    if (values === undefined) return undefined;
    const upper = values.map((v) => v.trim().toUpperCase());
    const invalid = values.filter((_, i) => !allowed.includes(upper[i]!));
    if (invalid.length > 0) {
      refinement.addIssue({
        code: 'custom',
        message: `Invalid ${parameter} values: ${JSON.stringify(invalid)}; expected ${allowed.join(', ')}`,
      });
      return z.NEVER;
    }
    return upper;
  });

/** Enough of a parameter to recognise it, however long it was. */
const shown = (raw: string): string => (raw.length > 100 ? `${raw.slice(0, 100)}…` : raw);

/**
 * `attribute=key:value`, split on the first colon; the value is JSON when it parses (so `5` is a
 * number, `true` a boolean, `"5"` a string) and a plain string otherwise (docs/reference/rest-facts.md §4.1).
 */
const attributeFilters = repeated.transform((values, refinement) => {
  if (values === undefined) return undefined;
  const filters: { key: string; value: JsonScalar }[] = [];
  for (const raw of values) {
    const colon = raw.indexOf(':');
    const key = colon < 0 ? '' : raw.slice(0, colon).trim();
    const text = colon < 0 ? '' : raw.slice(colon + 1);
    if (colon < 0 || key === '' || text === '') {
      refinement.addIssue({ code: 'custom', message: `"${shown(raw)}" must be key:value with a non-empty key and value` });
      return z.NEVER;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    if (value === null || typeof value === 'object') {
      refinement.addIssue({
        code: 'custom',
        message: `"${shown(raw)}": the value must be a string, number or boolean, not null, a list or an object`,
      });
      return z.NEVER;
    }
    // A JSON escape can smuggle in what the query string may not carry ("\u0000", a lone "\ud800"):
    // jsonb refuses both, so the filter is refused here rather than failing in Postgres.
    if (storableText(key) !== key || (typeof value === 'string' && storableText(value) !== value)) {
      refinement.addIssue({ code: 'custom', message: `"${shown(raw)}": must not contain NUL characters or unpaired UTF-16 surrogates` });
      return z.NEVER;
    }
    filters.push({ key, value: value as JsonScalar });
  }
  return filters;
});

export const spanFilterQuery = z.object({
  cursor: single,
  limit: limitParam(100, 1000),
  start_time: isoTimeParam,
  end_time: isoTimeParam,
  trace_id: repeated,
  span_id: repeated,
  parent_id: single,
  name: repeated,
  span_kind: upperIn(OPENINFERENCE_SPAN_KINDS, 'span_kind'),
  status_code: upperIn(SPAN_STATUS_CODES, 'status_code'),
  attribute: attributeFilters,
  /** The filter language (domain/filters/filterSyntax.ts), e.g. `span_kind == 'LLM' and latency_ms > 5000`. */
  filter: single,
  /** Full-text search over names, inputs and outputs. */
  search: single,
});

export type SpanFilterQuery = z.infer<typeof spanFilterQuery>;
