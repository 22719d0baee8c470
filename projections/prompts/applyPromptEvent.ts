import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import {
  storableDescription,
  storablePromptMetadata,
  storablePromptName,
  storablePromptVersion,
} from '../../domain/prompts/storablePrompt.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (v: unknown): string | null => (typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : null);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The next integer id of a kind: only called once a row is known to be new, so ids follow the log. */
const nextId = (tx: DatabaseTransactionConnection, kind: 'prompt' | 'version' | 'tag'): Promise<bigint> =>
  tx.oneFirst(sql.type(z.object({ last: z.bigint() }))`UPDATE prompt_ids SET last = last + 1 WHERE kind = ${kind} RETURNING last`);

const exists = async (tx: DatabaseTransactionConnection, query: ReturnType<typeof sql.fragment>): Promise<boolean> =>
  (await tx.oneFirst(sql.type(z.object({ found: z.boolean() }))`SELECT EXISTS (${query}) AS found`)) === true;

/**
 * One prompt event. Every field is made storable first (see domain/prompts/storablePrompt.ts);
 * rows of another incarnation, a missing prompt or version, or a name clash (only in a crafted
 * event) leave the tables as they were.
 */
export const applyPromptEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = isRecord(event.data) ? event.data : {};
  const promptId = uuidOrNull(d.promptId);
  if (promptId === null) return;
  const at = event.metadata.time;
  switch (event.type) {
    case 'PromptCreated': {
      const name = storablePromptName(d.name);
      if (await exists(tx, sql.fragment`SELECT 1 FROM prompts WHERE prompt_id = ${promptId} OR name = ${name}`)) return;
      const id = await nextId(tx, 'prompt');
      await tx.query(sql.unsafe`
        INSERT INTO prompts (id, prompt_id, name, description, metadata, source_prompt_id, created_at, updated_at)
        VALUES (${id}, ${promptId}, ${name}, ${storableDescription(d.description)}, ${sql.jsonb(storablePromptMetadata(d.metadata))},
          ${uuidOrNull(d.sourcePromptId)}, ${at}, ${at})`);
      return;
    }
    case 'PromptVersionAdded': {
      const versionId = uuidOrNull(d.versionId);
      if (versionId === null) return;
      if (await exists(tx, sql.fragment`SELECT 1 FROM prompt_versions WHERE version_id = ${versionId}`)) return;
      if (!(await exists(tx, sql.fragment`SELECT 1 FROM prompts WHERE prompt_id = ${promptId}`))) return;
      const v = storablePromptVersion(d.version);
      const id = await nextId(tx, 'version');
      const actor = typeof event.metadata.actor === 'string' ? event.metadata.actor : 'unknown';
      const jsonOrNull = (x: unknown) => (x === null ? null : sql.jsonb(x as never));
      await tx.query(sql.unsafe`
        INSERT INTO prompt_versions (id, version_id, prompt_id, description, model_provider, model_name, template_type, template_format,
          template, invocation_parameters, tools, response_format, actor, created_at)
        VALUES (${id}, ${versionId}, ${promptId}, ${v.description}, ${v.modelProvider}, ${v.modelName}, ${v.templateType}, ${v.templateFormat},
          ${sql.jsonb(v.template as never)}, ${sql.jsonb(v.invocationParameters)}, ${jsonOrNull(v.tools)}, ${jsonOrNull(v.responseFormat)},
          ${actor}, ${at})`);
      await tx.query(sql.unsafe`UPDATE prompts SET updated_at = ${at} WHERE prompt_id = ${promptId}`);
      return;
    }
    case 'PromptTagSet': {
      const versionId = uuidOrNull(d.versionId);
      const name = storablePromptName(d.name);
      if (versionId === null) return;
      if (!(await exists(tx, sql.fragment`SELECT 1 FROM prompt_versions WHERE version_id = ${versionId} AND prompt_id = ${promptId}`)))
        return;
      const description = storableDescription(d.description);
      const moved = await tx.query(sql.unsafe`
        UPDATE prompt_version_tags SET version_id = ${versionId}, description = ${description}
        WHERE prompt_id = ${promptId} AND name = ${name}`);
      if (moved.rowCount > 0) return;
      const id = await nextId(tx, 'tag');
      await tx.query(sql.unsafe`
        INSERT INTO prompt_version_tags (id, prompt_id, name, version_id, description)
        VALUES (${id}, ${promptId}, ${name}, ${versionId}, ${description})`);
      return;
    }
    case 'PromptTagRemoved':
      await tx.query(sql.unsafe`DELETE FROM prompt_version_tags WHERE prompt_id = ${promptId} AND name = ${storablePromptName(d.name)}`);
      return;
    case 'PromptUpdated': {
      const sets = [
        ...('description' in d ? [sql.fragment`description = ${storableDescription(d.description)}`] : []),
        ...('metadata' in d ? [sql.fragment`metadata = ${sql.jsonb(storablePromptMetadata(d.metadata))}`] : []),
        sql.fragment`updated_at = ${at}`,
      ];
      await tx.query(sql.unsafe`UPDATE prompts SET ${sql.join(sets, sql.fragment`, `)} WHERE prompt_id = ${promptId}`);
      return;
    }
    case 'PromptLabelsSet': {
      const labelIds = (Array.isArray(d.labelIds) ? d.labelIds : []).filter((x): x is number => Number.isSafeInteger(x));
      await tx.query(sql.unsafe`DELETE FROM prompt_label_links WHERE prompt_id = ${promptId}`);
      if (labelIds.length === 0) return;
      await tx.query(sql.unsafe`
        INSERT INTO prompt_label_links (prompt_id, label_id)
        SELECT ${promptId}, l.id FROM prompt_labels l
        WHERE l.id = ANY(${sql.array(labelIds, 'int8')}) AND EXISTS (SELECT 1 FROM prompts WHERE prompt_id = ${promptId})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'PromptDeleted':
      await tx.query(sql.unsafe`DELETE FROM prompt_version_tags WHERE prompt_id = ${promptId}`);
      await tx.query(sql.unsafe`DELETE FROM prompt_label_links WHERE prompt_id = ${promptId}`);
      await tx.query(sql.unsafe`DELETE FROM prompt_versions WHERE prompt_id = ${promptId}`);
      await tx.query(sql.unsafe`DELETE FROM prompts WHERE prompt_id = ${promptId}`);
      return;
  }
};

/** Labels and their links: a deleted label leaves every prompt. */
export const applyPromptLabelEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = isRecord(event.data) ? event.data : {};
  const labelId = typeof d.labelId === 'number' && Number.isSafeInteger(d.labelId) ? d.labelId : null;
  if (labelId === null) return;
  const label = isRecord(d.label) ? d.label : {};
  const name = storablePromptName(label.name);
  const color = typeof label.color === 'string' ? storablePromptName(label.color) : null;
  const description = storableDescription(label.description);
  switch (event.type) {
    case 'PromptLabelCreated':
      await tx.query(sql.unsafe`
        INSERT INTO prompt_labels (id, name, color, description) VALUES (${labelId}, ${name}, ${color}, ${description})
        ON CONFLICT DO NOTHING`);
      return;
    case 'PromptLabelUpdated':
      await tx.query(sql.unsafe`
        UPDATE prompt_labels SET name = ${name}, color = ${color}, description = ${description}
        WHERE id = ${labelId} AND NOT EXISTS (SELECT 1 FROM prompt_labels o WHERE o.name = ${name} AND o.id <> ${labelId})`);
      return;
    case 'PromptLabelDeleted':
      await tx.query(sql.unsafe`DELETE FROM prompt_label_links WHERE label_id = ${labelId}`);
      await tx.query(sql.unsafe`DELETE FROM prompt_labels WHERE id = ${labelId}`);
      return;
  }
};
