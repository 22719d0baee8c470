import { z } from 'zod';

/** The cost columns of spans, traces and sessions (USD; null: nothing of it is priced). */
export const costColumns = {
  cost_prompt: z.number().nullable(),
  cost_completion: z.number().nullable(),
  cost_total: z.number().nullable(),
};

export type CostColumns = {
  readonly cost_prompt: number | null;
  readonly cost_completion: number | null;
  readonly cost_total: number | null;
};
