import { z } from 'zod';
import type { CostColumns } from '../../projections/tracing/costColumns.ts';

/**
 * Loupe's `cost` on a span, trace, session or experiment run (the reference has none; an added
 * field its clients ignore): USD, or null when nothing of it is priced (no LLM span, or a model
 * without a price).
 */
/** `costJson`'s shape, for routes' response schemas. */
export const costSchema = z.object({ prompt: z.number(), completion: z.number(), total: z.number() }).nullable();

export const costJson = (c: CostColumns): { prompt: number; completion: number; total: number } | null =>
  c.cost_total === null ? null : { prompt: c.cost_prompt ?? 0, completion: c.cost_completion ?? 0, total: c.cost_total };
