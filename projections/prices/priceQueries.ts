import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ModelPrice } from '../../domain/prices/tokenPrice.ts';
import { customPrice, customPriceRow } from './loadPriceBook.ts';

const row = customPriceRow.extend({ set_by: z.string(), set_at: z.string() });

/** An admin's price version with who set it and when (from its event's metadata). */
export type CustomPrice = ModelPrice & { readonly effectiveFrom: string; readonly setBy: string; readonly setAt: string };

/**
 * The admins' price versions (`model_prices`, written by the tracing projector so spans are
 * priced in log order), by model then date.
 */
export const listCustomPrices = async (db: CommonQueryMethods): Promise<CustomPrice[]> =>
  (
    await db.any(sql.type(row)`
      SELECT model, name_pattern, provider, to_json(effective_from)#>>'{}' AS effective_from, prices, set_by,
        to_json(set_at)#>>'{}' AS set_at
      FROM model_prices ORDER BY model, effective_from`)
  ).map((r) => ({
    ...customPrice(r),
    effectiveFrom: new Date(r.effective_from).toISOString(),
    setBy: r.set_by,
    setAt: new Date(r.set_at).toISOString(),
  }));

/**
 * The model names of LLM spans without a cost in a project (over a window of start times), in a
 * trace or in a session: what a page says lacks a price ('' for spans that name no model).
 */
export const unpricedModels = async (
  db: CommonQueryMethods,
  scope:
    | { readonly projectRowid: number; readonly start: string | null; readonly end: string | null }
    | { readonly traceRowid: number }
    | { readonly sessionRowid: number },
): Promise<string[]> => {
  const where =
    'traceRowid' in scope
      ? [sql.fragment`s.trace_rowid = ${scope.traceRowid}`]
      : 'sessionRowid' in scope
        ? [sql.fragment`s.trace_rowid IN (SELECT t.id FROM traces t WHERE t.session_id = ${scope.sessionRowid})`]
        : [
            sql.fragment`s.project_id = ${scope.projectRowid}`,
            ...(scope.start !== null ? [sql.fragment`s.start_time >= ${scope.start}::timestamptz`] : []),
            ...(scope.end !== null ? [sql.fragment`s.start_time < ${scope.end}::timestamptz`] : []),
          ];
  return [
    ...(await db.anyFirst(sql.type(z.object({ model: z.string() }))`
      SELECT DISTINCT coalesce(s.llm_model_name, '') AS model FROM spans s
      WHERE s.span_kind = 'LLM' AND s.cost_total IS NULL AND ${sql.join(where, sql.fragment` AND `)}
      ORDER BY 1 LIMIT 50`)),
  ];
};
