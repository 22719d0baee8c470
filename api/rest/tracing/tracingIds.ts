import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';

/** The Relay type names Phoenix uses for these rows (docs/reference/rest-facts.md §0.3). */
export type TracingType = 'Project' | 'Trace' | 'Span' | 'ProjectSession';

export const globalIdOf = (type: TracingType, rowid: number): string => toGlobalId(type, String(rowid));

/** The row id inside a GlobalID of `type`, or null when `raw` is something else (then it is a natural key). */
export const rowidOf = (type: TracingType, raw: string): number | null => {
  const id = fromGlobalId(type, raw);
  return id !== null && /^\d{1,15}$/.test(id) ? Number(id) : null;
};

/**
 * A pagination cursor: a GlobalID of any type whose id is an integer (Phoenix only reads the
 * number). Anything else is a 422 naming the parameter.
 */
export const cursorOf = (raw: string | undefined, parameter = 'cursor'): number | null => {
  if (raw === undefined || raw === '') return null;
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64').toString('utf8') : '';
  const m = /^[A-Za-z]+:(\d{1,15})$/.exec(decoded);
  if (!m)
    throw new HttpError(
      422,
      'invalid_cursor',
      `query.${parameter}: Invalid cursor format: ${raw.length > 100 ? `${raw.slice(0, 100)}…` : raw}`,
    );
  return Number(m[1]);
};

/** `{data, next_cursor}` from `limit + 1` rows: the extra row, if any, is the next page's first. */
export const page = <R extends { readonly id: number }, J>(
  rows: readonly R[],
  limit: number,
  type: TracingType,
  render: (row: R) => J,
) => ({
  data: rows.slice(0, limit).map(render),
  next_cursor: rows.length > limit ? globalIdOf(type, rows[limit]!.id) : null,
});
