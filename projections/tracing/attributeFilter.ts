import { sql, type FragmentSqlToken } from 'slonik';
import type { JsonScalar } from '../../domain/tracing/jsonValue.ts';

/**
 * Attributes whose JSON value is at most this many bytes go into `spans.attribute_index` too.
 * Span attributes carry kilobytes of prompt and completion text, so a GIN index on the whole
 * document gives the planner no usable statistics and every recheck detoasts ~5 KB; the small
 * values (ids, model names, tiers, flags) fit inline in a few hundred bytes (BENCHMARKS.md §2).
 */
export const ATTRIBUTE_INDEX_MAX_VALUE_BYTES = 256;

/**
 * The attribute_index of a row, from its attributes, in SQL: the projector and the migration that
 * fills existing rows use this one expression, so live rows and rebuilt rows are identical.
 */
export const attributeIndexOf = (attributes: string): string =>
  `(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(${attributes}) e ` +
  `WHERE octet_length(e.value::text) <= ${ATTRIBUTE_INDEX_MAX_VALUE_BYTES})`;

/** attributeIndexOf for the projector's INSERT … SELECT, where the attributes are `x.attributes`. */
export const attributeIndexOfRow = (alias: string): FragmentSqlToken =>
  sql.fragment`(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(${sql.identifier([alias, 'attributes'])}) e
    WHERE octet_length(e.value::text) <= ${ATTRIBUTE_INDEX_MAX_VALUE_BYTES})`;

/**
 * Whether Postgres renders this value in at most the index's byte limit. A string or a boolean
 * is rendered as JSON.stringify does (same escapes); a number is re-rendered by Postgres' numeric
 * (1e21 becomes 22 digits), so only plain decimal notation is trusted. A margin covers the rest.
 */
const fitsIndex = (value: JsonScalar): boolean => {
  if (typeof value === 'number' && /e/i.test(String(value))) return false;
  return Buffer.byteLength(JSON.stringify(value)) <= ATTRIBUTE_INDEX_MAX_VALUE_BYTES - 32;
};

/**
 * `attributes @> {key: value}`, through the small attribute_index when the value fits there
 * (exact: an equal stored value has the same size, so it is in the index), else on the full
 * document. Attribute keys are flat (`llm.model_name`) and filter values scalars.
 */
export const attributeMatches = (alias: string, key: string, value: JsonScalar): FragmentSqlToken => {
  const wanted = JSON.stringify({ [key]: value });
  return fitsIndex(value)
    ? sql.fragment`${sql.identifier([alias, 'attribute_index'])} @> ${wanted}::jsonb`
    : sql.fragment`${sql.identifier([alias, 'attributes'])} @> ${wanted}::jsonb`;
};
