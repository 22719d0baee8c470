import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const savedFilterRow = z.object({
  filter_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  subject: z.enum(['span', 'trace', 'session']),
  condition: z.string(),
  search: z.string(),
});

export type SavedFilterRow = z.infer<typeof savedFilterRow>;

/** A project's saved filters for one list (or all), most recently saved first. */
export const listSavedFilters = (
  db: CommonQueryMethods,
  projectId: string,
  subject: SavedFilterRow['subject'] | null,
): Promise<readonly SavedFilterRow[]> =>
  db.any(sql.type(savedFilterRow)`
    SELECT filter_id, project_id::text AS project_id, name, subject, condition, search FROM saved_filters
    WHERE project_id = ${projectId}::uuid ${subject === null ? sql.fragment`` : sql.fragment`AND subject = ${subject}`}
    ORDER BY ordinal DESC`);

export const findSavedFilter = (db: CommonQueryMethods, filterId: string): Promise<SavedFilterRow | null> =>
  db.maybeOne(sql.type(savedFilterRow)`
    SELECT filter_id, project_id::text AS project_id, name, subject, condition, search FROM saved_filters WHERE filter_id = ${filterId}`);
