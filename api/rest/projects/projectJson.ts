import { z } from 'zod';
import type { ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { globalIdOf } from '../../http/globalId.ts';

/** `projectJson`'s shape, as routes declare it. */
export const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  gradient_start_color: z.string().nullable(),
  gradient_end_color: z.string().nullable(),
  restricted: z.boolean(),
});

/**
 * Phoenix's `Project` (id, name, description; no timestamps) plus the gradient colours, under the
 * names POST and PUT accept them: Phoenix's REST shape has no colours (its UI reads them over
 * GraphQL), and a colour one can write but never read back is lost.
 */
export const projectJson = (p: ProjectRow) => ({
  id: globalIdOf('Project', p.id),
  name: p.name,
  description: p.description,
  gradient_start_color: p.gradient_start_color,
  gradient_end_color: p.gradient_end_color,
  /** Loupe: only admins, system keys and the project's grantees see a restricted project. */
  restricted: p.restricted,
});
