import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** How many of the newest spans the key list is taken from: enough to see every key an app sends. */
const RECENT_SPANS = 500;

/**
 * The attribute keys of a project's newest spans, sorted, for the filter bar's completion. A
 * sample, not every key ever sent: reading every span's attributes would cost a scan of the
 * project, and an app sends the same keys span after span.
 */
export const recentAttributeKeys = (db: CommonQueryMethods, projectId: number, limit: number): Promise<readonly string[]> =>
  db.anyFirst(sql.type(z.object({ key: z.string() }))`
    SELECT DISTINCT k AS key
    FROM (SELECT attributes FROM spans WHERE project_id = ${projectId} ORDER BY id DESC LIMIT ${RECENT_SPANS}) s,
      jsonb_object_keys(s.attributes) k
    ORDER BY key
    LIMIT ${limit}`);
