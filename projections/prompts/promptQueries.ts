import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const json = z.unknown();

const promptRow = z.object({
  id: z.bigint().transform(Number),
  prompt_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  metadata: json,
  source_id: z.bigint().transform(Number).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PromptRow = z.infer<typeof promptRow>;

const versionRow = z.object({
  id: z.bigint().transform(Number),
  version_id: z.string(),
  prompt_id: z.string(),
  prompt_name: z.string(),
  prompt_rowid: z.bigint().transform(Number),
  description: z.string().nullable(),
  model_provider: z.string(),
  model_name: z.string(),
  template_type: z.string(),
  template_format: z.string(),
  template: json,
  invocation_parameters: json,
  tools: json.nullable(),
  response_format: json.nullable(),
  actor: z.string(),
  created_at: z.string(),
});
export type PromptVersionRow = z.infer<typeof versionRow>;

const tagRow = z.object({
  id: z.bigint().transform(Number),
  prompt_id: z.string(),
  name: z.string(),
  version_id: z.string(),
  version_rowid: z.bigint().transform(Number),
  description: z.string().nullable(),
});
export type PromptTagRow = z.infer<typeof tagRow>;

const labelRow = z.object({
  id: z.bigint().transform(Number),
  name: z.string(),
  color: z.string().nullable(),
  description: z.string().nullable(),
});
export type PromptLabelRow = z.infer<typeof labelRow>;

const iso = (column: string) =>
  sql.fragment`to_char(${sql.identifier(column.split('.'))} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const promptColumns = sql.fragment`p.id, p.prompt_id::text AS prompt_id, p.name, p.description, p.metadata,
  (SELECT s.id FROM prompts s WHERE s.prompt_id = p.source_prompt_id) AS source_id,
  ${iso('p.created_at')} AS created_at, ${iso('p.updated_at')} AS updated_at`;

const versionColumns = sql.fragment`v.id, v.version_id::text AS version_id, v.prompt_id::text AS prompt_id, p.name AS prompt_name, p.id AS prompt_rowid,
  v.description, v.model_provider, v.model_name, v.template_type, v.template_format, v.template, v.invocation_parameters,
  v.tools, v.response_format, v.actor, ${iso('v.created_at')} AS created_at`;

/**
 * Newest first from `cursor` (a row id, inclusive); `limit + 1` rows. `nameContains` matches
 * case-insensitively and literally (no wildcards); `labelIds` keeps prompts carrying any of them.
 */
export const listPrompts = (
  db: CommonQueryMethods,
  q: {
    readonly cursor: number | null;
    readonly limit: number;
    readonly nameContains?: string | null;
    readonly labelIds?: readonly number[] | null;
  },
): Promise<readonly PromptRow[]> => {
  const where = [
    sql.fragment`true`,
    ...(q.cursor !== null ? [sql.fragment`p.id <= ${q.cursor}`] : []),
    ...(q.nameContains ? [sql.fragment`strpos(lower(p.name), lower(${q.nameContains})) > 0`] : []),
    ...(q.labelIds && q.labelIds.length > 0
      ? [
          sql.fragment`EXISTS (SELECT 1 FROM prompt_label_links k WHERE k.prompt_id = p.prompt_id
            AND k.label_id = ANY(${sql.array([...q.labelIds], 'int8')}))`,
        ]
      : []),
  ];
  return db.any(sql.type(promptRow)`
    SELECT ${promptColumns} FROM prompts p WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY p.id DESC LIMIT ${q.limit + 1}`);
};

export const findPrompt = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly name: string } | { readonly promptId: string },
): Promise<PromptRow | null> =>
  db.maybeOne(sql.type(promptRow)`
    SELECT ${promptColumns} FROM prompts p
    WHERE ${'id' in by ? sql.fragment`p.id = ${by.id}` : 'name' in by ? sql.fragment`p.name = ${by.name}` : sql.fragment`p.prompt_id = ${by.promptId}`}`);

/** A prompt's versions newest first from `cursor` (inclusive); `limit + 1` rows. */
export const listPromptVersions = (
  db: CommonQueryMethods,
  q: { readonly promptId: string; readonly cursor: number | null; readonly limit: number },
): Promise<readonly PromptVersionRow[]> =>
  db.any(sql.type(versionRow)`
    SELECT ${versionColumns} FROM prompt_versions v JOIN prompts p ON p.prompt_id = v.prompt_id
    WHERE v.prompt_id = ${q.promptId} ${q.cursor !== null ? sql.fragment`AND v.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY v.id DESC LIMIT ${q.limit + 1}`);

export const latestPromptVersion = (db: CommonQueryMethods, promptId: string): Promise<PromptVersionRow | null> =>
  db.maybeOne(sql.type(versionRow)`
    SELECT ${versionColumns} FROM prompt_versions v JOIN prompts p ON p.prompt_id = v.prompt_id
    WHERE v.prompt_id = ${promptId} ORDER BY v.id DESC LIMIT 1`);

export const promptVersionByTag = (db: CommonQueryMethods, promptId: string, tag: string): Promise<PromptVersionRow | null> =>
  db.maybeOne(sql.type(versionRow)`
    SELECT ${versionColumns} FROM prompt_version_tags t
    JOIN prompt_versions v ON v.version_id = t.version_id JOIN prompts p ON p.prompt_id = v.prompt_id
    WHERE t.prompt_id = ${promptId} AND t.name = ${tag}`);

export const findPromptVersion = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly versionId: string },
): Promise<PromptVersionRow | null> =>
  db.maybeOne(sql.type(versionRow)`
    SELECT ${versionColumns} FROM prompt_versions v JOIN prompts p ON p.prompt_id = v.prompt_id
    WHERE ${'id' in by ? sql.fragment`v.id = ${by.id}` : sql.fragment`v.version_id = ${by.versionId}`}`);

/** The tags pointing at one version, newest first from `cursor` (inclusive); `limit + 1` rows. */
export const listVersionTags = (
  db: CommonQueryMethods,
  q: { readonly versionId: string; readonly cursor: number | null; readonly limit: number },
): Promise<readonly PromptTagRow[]> =>
  db.any(sql.type(tagRow)`
    SELECT t.id, t.prompt_id::text AS prompt_id, t.name, t.version_id::text AS version_id,
      (SELECT v.id FROM prompt_versions v WHERE v.version_id = t.version_id) AS version_rowid, t.description FROM prompt_version_tags t
    WHERE t.version_id = ${q.versionId} ${q.cursor !== null ? sql.fragment`AND t.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY t.id DESC LIMIT ${q.limit + 1}`);

/** One tag by its row id (a PromptVersionTag GlobalID). */
export const findPromptTag = (db: CommonQueryMethods, id: number): Promise<PromptTagRow | null> =>
  db.maybeOne(sql.type(tagRow)`
    SELECT t.id, t.prompt_id::text AS prompt_id, t.name, t.version_id::text AS version_id,
      (SELECT v.id FROM prompt_versions v WHERE v.version_id = t.version_id) AS version_rowid, t.description FROM prompt_version_tags t
    WHERE t.id = ${id}`);

/** Every tag of a prompt, by name. */
export const listPromptTags = (db: CommonQueryMethods, promptId: string): Promise<readonly PromptTagRow[]> =>
  db.any(sql.type(tagRow)`
    SELECT t.id, t.prompt_id::text AS prompt_id, t.name, t.version_id::text AS version_id,
      (SELECT v.id FROM prompt_versions v WHERE v.version_id = t.version_id) AS version_rowid, t.description FROM prompt_version_tags t
    WHERE t.prompt_id = ${promptId} ORDER BY t.name`);

/** Every label, by name; with a prompt: only the labels it carries. */
export const listPromptLabels = (db: CommonQueryMethods, promptId?: string): Promise<readonly PromptLabelRow[]> =>
  db.any(sql.type(labelRow)`
    SELECT l.id, l.name, l.color, l.description FROM prompt_labels l
    ${promptId !== undefined ? sql.fragment`WHERE EXISTS (SELECT 1 FROM prompt_label_links k WHERE k.label_id = l.id AND k.prompt_id = ${promptId})` : sql.fragment``}
    ORDER BY l.name`);

const positionRow = z.object({ sequence_number: z.number(), version_count: z.number() });

/** Where a version stands in its prompt: 1-based in the order added, and how many there are. */
export const promptVersionPosition = (
  db: CommonQueryMethods,
  versionId: string,
): Promise<{ readonly sequence_number: number; readonly version_count: number } | null> =>
  db.maybeOne(sql.type(positionRow)`
    SELECT (SELECT count(*) FROM prompt_versions o WHERE o.prompt_id = v.prompt_id AND o.id <= v.id)::int AS sequence_number,
      (SELECT count(*) FROM prompt_versions o WHERE o.prompt_id = v.prompt_id)::int AS version_count
    FROM prompt_versions v WHERE v.version_id = ${versionId}`);

/** How many prompts carry each label. */
export const promptLabelUsage = (db: CommonQueryMethods): Promise<readonly { readonly label_id: number; readonly prompts: number }[]> =>
  db.any(sql.type(z.object({ label_id: z.bigint().transform(Number), prompts: z.number() }))`
    SELECT label_id, count(*)::int AS prompts FROM prompt_label_links GROUP BY label_id`);
