import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/**
 * How many documents each span recorded: retrieved documents (`retrieval.documents.<i>.…`), or a
 * reranker's output documents (`reranker.output_documents.<i>.…`) for RERANKER spans — one more
 * than the highest index among its flat attribute keys. Read from the tracing read model's spans:
 * a synchronous document annotation is checked against what the span holds, as the reference does.
 */
export const documentCounts = async (db: CommonQueryMethods, spanIds: readonly string[]): Promise<ReadonlyMap<string, number>> => {
  const rows = await db.any(sql.type(z.object({ span_id: z.string(), n: z.number() }))`
    SELECT s.span_id, coalesce(max(
      (substring(k FROM CASE WHEN s.span_kind = 'RERANKER' THEN '^reranker\\.output_documents\\.(\\d{1,9})\\.' ELSE '^retrieval\\.documents\\.(\\d{1,9})\\.' END))::int
    ) + 1, 0)::int AS n
    FROM spans s LEFT JOIN LATERAL jsonb_object_keys(s.attributes) k ON true
    WHERE s.span_id = ANY(${sql.array([...new Set(spanIds)], 'text')})
    GROUP BY s.span_id, s.span_kind`);
  return new Map(rows.map((r) => [r.span_id, r.n]));
};
