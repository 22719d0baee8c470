import { z } from 'zod';
import type { PromptRow, PromptTagRow } from '../../../projections/prompts/promptQueries.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { identifier, promptVersionBody } from './promptVersionJson.ts';

export const promptGlobalId = (rowid: number): string => toGlobalId('Prompt', String(rowid));

/** `{"prompt": PromptData, "version": PromptVersionData}`; `source_prompt_id` is taken and ignored, as by the reference. */
export const createPromptBody = z.object({
  prompt: z.object({
    name: identifier,
    description: z.string().nullish(),
    source_prompt_id: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  version: promptVersionBody,
});

export const patchPromptBody = z
  .object({ description: z.string().nullable().optional(), metadata: z.record(z.string(), z.unknown()).optional() })
  .refine((b) => b.description !== undefined || b.metadata !== undefined, { message: 'give description or metadata (or both)' });

export const tagBody = z.object({ name: identifier, description: z.string().nullish() });

/** `promptJson`'s shape. */
export const promptSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  source_prompt_id: z.string().nullable(),
  metadata: z.unknown(),
  id: z.string(),
});

/** `promptTagJson`'s shape. */
export const promptTagSchema = z.object({ name: z.string(), description: z.string().optional(), id: z.string() });

export const promptJson = (row: PromptRow) => ({
  name: row.name,
  description: row.description,
  source_prompt_id: row.source_id !== null ? promptGlobalId(row.source_id) : null,
  metadata: row.metadata,
  id: promptGlobalId(row.id),
});

/** Without `description` when it has none, as the reference answers (unset fields left out). */
export const promptTagJson = (row: PromptTagRow) => ({
  name: row.name,
  ...(row.description !== null ? { description: row.description } : {}),
  id: toGlobalId('PromptVersionTag', String(row.id)),
});
