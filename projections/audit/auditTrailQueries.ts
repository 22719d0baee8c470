import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { AuditChange, AuditResourceType } from '../../domain/audit/describeEvent.ts';

export type AuditResourceFilter =
  | { readonly kind: 'resource'; readonly type: AuditResourceType; readonly key: string }
  | { readonly kind: 'stream'; readonly stream: string };

export type AuditFilter = {
  /** The actor exactly as events record it (`user:<id>`, `apikey:<id>`, `system`, `retention:default`, ...). */
  readonly actor: string | null;
  readonly types: readonly string[] | null;
  readonly resource: AuditResourceFilter | null;
  /** ISO times, inclusive. */
  readonly from: string | null;
  readonly to: string | null;
};

export type AuditRow = {
  readonly id: number;
  readonly kind: 'event' | 'ingestion';
  readonly position: string;
  readonly eventId: string | null;
  readonly at: string;
  readonly type: string;
  readonly actor: string;
  /** What the trail knows the actor as (a username, an API key's name), null when unknown. */
  readonly actorName: string | null;
  readonly requestId: string | null;
  readonly stream: string | null;
  readonly resourceType: AuditResourceType | null;
  readonly resourceKey: string | null;
  readonly resourceName: string | null;
  /** The row id of the resource in its read model while it exists (projects, prompts, datasets, experiments). */
  readonly resourceRowid: number | null;
  /** An experiment's dataset row id (its page hangs below the dataset's). */
  readonly resourceParentRowid: number | null;
  readonly summary: string;
  readonly changes: readonly AuditChange[];
  readonly erasedBy: string | null;
  readonly ingestion: {
    readonly exports: number;
    readonly spans: number;
    readonly lastPosition: string;
    readonly lastAt: string;
  } | null;
};

const row = z.object({
  id: z.bigint(),
  kind: z.enum(['event', 'ingestion']),
  position: z.string(),
  event_id: z.string().nullable(),
  at: z.number(),
  type: z.string(),
  actor: z.string(),
  actor_name: z.string().nullable(),
  request_id: z.string().nullable(),
  stream: z.string().nullable(),
  resource_type: z.string().nullable(),
  resource_key: z.string().nullable(),
  resource_name: z.string().nullable(),
  resource_rowid: z.bigint().nullable(),
  resource_parent_rowid: z.bigint().nullable(),
  summary: z.string(),
  changes: z.array(z.object({ field: z.string(), before: z.string().nullable(), after: z.string().nullable() })),
  erased_by: z.string().nullable(),
  exports: z.number().nullable(),
  spans: z.bigint().nullable(),
  last_position: z.string().nullable(),
  last_at: z.number().nullable(),
});

const toRow = (r: z.infer<typeof row>): AuditRow => ({
  id: Number(r.id),
  kind: r.kind,
  position: r.position,
  eventId: r.event_id,
  at: new Date(r.at).toISOString(),
  type: r.type,
  actor: r.actor,
  actorName: r.actor_name,
  requestId: r.request_id,
  stream: r.stream,
  resourceType: r.resource_type as AuditResourceType | null,
  resourceKey: r.resource_key,
  resourceName: r.resource_name,
  resourceRowid: r.resource_rowid === null ? null : Number(r.resource_rowid),
  resourceParentRowid: r.resource_parent_rowid === null ? null : Number(r.resource_parent_rowid),
  summary: r.summary,
  changes: r.changes,
  erasedBy: r.erased_by,
  ingestion:
    r.kind === 'ingestion'
      ? {
          exports: r.exports ?? 0,
          spans: Number(r.spans ?? 0),
          lastPosition: r.last_position ?? r.position,
          lastAt: new Date(r.last_at ?? r.at).toISOString(),
        }
      : null,
});

/** The subject kind (auditSubjects.ts) of a resource type, in SQL. */
const SUBJECT_KIND = sql.fragment`CASE t.resource_type WHEN 'User' THEN 'user' WHEN 'UserApiKey' THEN 'apikey' WHEN 'SystemApiKey' THEN 'apikey'
  WHEN 'Project' THEN 'project' WHEN 'Prompt' THEN 'prompt' WHEN 'Dataset' THEN 'dataset' WHEN 'Experiment' THEN 'experiment'
  WHEN 'AnnotationConfig' THEN 'annotationConfig' WHEN 'PromptLabel' THEN 'promptLabel' WHEN 'DatasetLabel' THEN 'datasetLabel'
  WHEN 'DatasetSplit' THEN 'datasetSplit' WHEN 'RetentionPolicy' THEN 'retentionPolicy'
  WHEN 'Evaluator' THEN 'evaluator' END`;

const conditions = (filter: AuditFilter, cursor: number | null) => {
  const where = [sql.fragment`TRUE`];
  if (cursor !== null) where.push(sql.fragment`t.id <= ${cursor}`);
  if (filter.actor !== null) where.push(sql.fragment`t.actor = ${filter.actor}`);
  if (filter.types !== null) where.push(sql.fragment`t.type = ANY(${sql.array([...filter.types], 'text')})`);
  if (filter.resource?.kind === 'stream') where.push(sql.fragment`t.stream = ${filter.resource.stream}`);
  if (filter.resource?.kind === 'resource') {
    // A key's type is told from what the trail knows of it: match either kind of key.
    const types =
      filter.resource.type === 'UserApiKey' || filter.resource.type === 'SystemApiKey'
        ? ['UserApiKey', 'SystemApiKey']
        : [filter.resource.type];
    where.push(sql.fragment`t.resource_type = ANY(${sql.array(types, 'text')}) AND t.resource_key = ${filter.resource.key}`);
  }
  if (filter.from !== null) where.push(sql.fragment`t.at >= ${filter.from}::timestamptz`);
  if (filter.to !== null) where.push(sql.fragment`t.at <= ${filter.to}::timestamptz`);
  return sql.join(where, sql.fragment` AND `);
};

/**
 * A page of the audit trail, newest first, from the entry `cursor` (inclusive) on: `limit + 1`
 * rows, so the caller knows the next page's first. Resources that still exist get their row id
 * from their own read model (the trail keeps only the domain's ids).
 */
export const listAuditEntries = async (
  db: CommonQueryMethods,
  filter: AuditFilter,
  page: { readonly cursor: number | null; readonly limit: number },
): Promise<AuditRow[]> => {
  const rows = await db.any(sql.type(row)`
    SELECT t.id, t.kind, t.position, t.event_id, t.at, t.type, t.actor, s.state->>'name' AS actor_name, t.request_id, t.stream,
           t.resource_type, t.resource_key, COALESCE(t.resource_name, rs.state->>'name') AS resource_name,
           COALESCE(p.id, pr.id, d.id, x.id) AS resource_rowid, xd.id AS resource_parent_rowid,
           t.summary, t.changes, t.erased_by, t.exports, t.spans, t.last_position, t.last_at
    FROM audit_trail t
    LEFT JOIN audit_subjects s ON s.key = t.actor
    -- An event before the one that named its subject (a username reserved before the user is created) gets the name known now.
    LEFT JOIN audit_subjects rs ON t.resource_name IS NULL AND rs.key = ${SUBJECT_KIND} || ':' || t.resource_key
    LEFT JOIN projects p ON t.resource_type = 'Project' AND p.project_id::text = t.resource_key
    LEFT JOIN prompts pr ON t.resource_type = 'Prompt' AND pr.prompt_id::text = t.resource_key
    LEFT JOIN datasets d ON t.resource_type = 'Dataset' AND d.dataset_id::text = t.resource_key
    LEFT JOIN experiments x ON t.resource_type = 'Experiment' AND x.experiment_id::text = t.resource_key
    LEFT JOIN datasets xd ON xd.dataset_id = x.dataset_id
    WHERE ${conditions(filter, page.cursor)}
    ORDER BY t.id DESC
    LIMIT ${page.limit + 1}`);
  return rows.map(toRow);
};

const TABLES: Partial<Record<AuditResourceType, { readonly table: string; readonly column: string }>> = {
  Project: { table: 'projects', column: 'project_id' },
  Prompt: { table: 'prompts', column: 'prompt_id' },
  Dataset: { table: 'datasets', column: 'dataset_id' },
  Experiment: { table: 'experiments', column: 'experiment_id' },
};

/** The domain id (uuid) of a project, prompt, dataset or experiment named by its row id; null when there is none. */
export const resourceKeyOfRowid = async (db: CommonQueryMethods, type: AuditResourceType, rowid: number): Promise<string | null> => {
  const target = TABLES[type];
  if (target === undefined) return null;
  return db.maybeOneFirst(
    sql.type(z.object({ key: z.string() }))`
      SELECT ${sql.identifier([target.column])}::text AS key FROM ${sql.identifier([target.table])} WHERE id = ${rowid}`,
  );
};
