import { globalIdOf } from './globalId.ts';
import { HttpError } from './httpError.ts';

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

/** The next page's cursor for a row: the GlobalID of `type` with the row's id (the usual case). */
export const byRowid =
  (type: string) =>
  (row: { readonly id: number }): string =>
    globalIdOf(type, row.id);

/**
 * The REST page `{data, next_cursor}` from `limit + 1` rows: the extra row, if any, is the next
 * page's first, and its cursor is `cursorFor(row)` (usually `byRowid('<Type>')`).
 */
export const page = <R, J>(rows: readonly R[], limit: number, cursorFor: (row: R) => string, render: (row: R) => J) => ({
  data: rows.slice(0, limit).map(render),
  next_cursor: rows.length > limit ? cursorFor(rows[limit]!) : null,
});
