import { sql, type DatabaseTransactionConnection, type FragmentSqlToken } from 'slonik';
import type { EvaluationFailed, EvaluatorEvent } from '../../domain/evaluators/events.ts';
import { ERASED_ERROR } from '../../domain/evaluators/erasedFailures.ts';
import type { ContentRemoved } from '../../domain/retention/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../../domain/base/storableText.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const id = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The definition's columns; the decider refuses bad ones, a crafted event is coerced. */
const definitionColumns = (raw: unknown) => {
  const d = (raw ?? {}) as Record<string, unknown>;
  return {
    name: storableName(text(d.name)),
    kind: storableName(text(d.kind)),
    description: typeof d.description === 'string' ? clippedText(d.description, MESSAGE_MAX_BYTES) : null,
    definition: sql.jsonb(JSON.parse(JSON.stringify(d)) as never),
  };
};

const settingsColumns = (raw: unknown) => {
  const s = (raw ?? {}) as Record<string, unknown>;
  const rate = typeof s.samplingRate === 'number' && s.samplingRate >= 0 && s.samplingRate <= 1 ? s.samplingRate : 0;
  const mapping = (s.inputMapping ?? {}) as Record<string, unknown>;
  return {
    target: ['SPAN', 'TRACE', 'SESSION'].includes(text(s.target)) ? text(s.target) : 'SPAN',
    rate,
    filter: clippedText(text(s.filter), MESSAGE_MAX_BYTES),
    mapping: sql.jsonb({
      pathMapping: (mapping.pathMapping ?? {}) as never,
      literalMapping: (mapping.literalMapping ?? {}) as never,
    }),
    annotationName: typeof s.annotationName === 'string' ? storableName(s.annotationName) : null,
    delay: typeof s.delaySeconds === 'number' && Number.isInteger(s.delaySeconds) && s.delaySeconds >= 0 ? s.delaySeconds : 0,
    enabled: s.enabled !== false,
  };
};

const TARGET_TABLES = {
  SPAN: sql.identifier(['spans']),
  TRACE: sql.identifier(['traces']),
  SESSION: sql.identifier(['sessions']),
} as const;

/** The last row of the target's table for the project, as the tracing read model has it now. */
const lastRowid = (target: string, projectId: string | FragmentSqlToken) =>
  sql.fragment`(SELECT coalesce(max(r.id), 0) FROM ${TARGET_TABLES[target as keyof typeof TARGET_TABLES] ?? TARGET_TABLES.SPAN} r
    WHERE r.project_id = (SELECT p.id FROM projects p WHERE p.project_id = ${projectId}))`;

/** Evaluators and their uses on projects. A name clash (only in a crafted event) leaves the rows as they were. */
export const applyEvaluatorEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent & EvaluatorEvent): Promise<void> => {
  const at = event.metadata.time;
  switch (event.type) {
    case 'EvaluatorCreated':
    case 'EvaluatorUpdated': {
      const evaluatorId = id(event.data?.evaluatorId);
      if (evaluatorId === null) return;
      const c = definitionColumns(event.data.definition);
      const version = id(event.data.version) ?? 1;
      await tx.query(sql.unsafe`
        INSERT INTO evaluators (id, name, kind, description, definition, version, created_at, updated_at)
        SELECT ${evaluatorId}, ${c.name}, ${c.kind}, ${c.description}, ${c.definition}, ${version}, ${at}, ${at}
        WHERE NOT EXISTS (SELECT 1 FROM evaluators o WHERE o.name = ${c.name} AND o.id <> ${evaluatorId})
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, description = excluded.description,
          definition = excluded.definition, version = excluded.version, updated_at = excluded.updated_at
        WHERE evaluators.version < excluded.version`);
      return;
    }
    case 'EvaluatorDeleted': {
      const evaluatorId = id(event.data?.evaluatorId);
      if (evaluatorId === null) return;
      await tx.query(sql.unsafe`DELETE FROM project_evaluators WHERE evaluator_id = ${evaluatorId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_evaluators WHERE evaluator_id = ${evaluatorId}`);
      await tx.query(sql.unsafe`DELETE FROM evaluators WHERE id = ${evaluatorId}`);
      return;
    }
    case 'ProjectEvaluatorAttached': {
      const attachmentId = id(event.data?.attachmentId);
      const evaluatorId = id(event.data?.evaluatorId);
      const projectId =
        typeof event.data?.projectId === 'string' && UUID.test(event.data.projectId) ? event.data.projectId.toLowerCase() : null;
      if (attachmentId === null || evaluatorId === null || projectId === null) return;
      const s = settingsColumns(event.data.settings);
      await tx.query(sql.unsafe`
        INSERT INTO project_evaluators (id, evaluator_id, project_id, target, sampling_rate, filter, input_mapping, annotation_name,
          delay_seconds, enabled, start_after_rowid, created_at, updated_at)
        SELECT ${attachmentId}, ${evaluatorId}, ${projectId}, ${s.target}, ${s.rate}, ${s.filter}, ${s.mapping}, ${s.annotationName},
          ${s.delay}, ${s.enabled}, ${lastRowid(s.target, projectId)}, ${at}, ${at}
        WHERE EXISTS (SELECT 1 FROM evaluators WHERE id = ${evaluatorId})
        ON CONFLICT (id) DO NOTHING`);
      return;
    }
    case 'ProjectEvaluatorChanged': {
      const attachmentId = id(event.data?.attachmentId);
      if (attachmentId === null) return;
      const s = settingsColumns(event.data.settings);
      await tx.query(sql.unsafe`
        UPDATE project_evaluators SET target = ${s.target}, sampling_rate = ${s.rate}, filter = ${s.filter}, input_mapping = ${s.mapping},
          annotation_name = ${s.annotationName}, delay_seconds = ${s.delay}, enabled = ${s.enabled}, updated_at = ${at},
          start_after_rowid = CASE WHEN target = ${s.target} THEN start_after_rowid ELSE ${lastRowid(s.target, sql.fragment`project_evaluators.project_id`)} END
        WHERE id = ${attachmentId}`);
      return;
    }
    case 'ProjectEvaluatorDetached': {
      const attachmentId = id(event.data?.attachmentId);
      if (attachmentId !== null) await tx.query(sql.unsafe`DELETE FROM project_evaluators WHERE id = ${attachmentId}`);
      return;
    }
    case 'EvaluatorBackfillRequested':
      return; // the evaluation reactor's work, nothing to show
    case 'DatasetEvaluatorAttached': {
      const datasetEvaluatorId = id(event.data?.datasetEvaluatorId);
      const evaluatorId = id(event.data?.evaluatorId);
      const datasetId =
        typeof event.data?.datasetId === 'string' && UUID.test(event.data.datasetId) ? event.data.datasetId.toLowerCase() : null;
      if (datasetEvaluatorId === null || evaluatorId === null || datasetId === null) return;
      const mapping = settingsColumns({ inputMapping: event.data.inputMapping }).mapping;
      const annotationName = typeof event.data.annotationName === 'string' ? storableName(event.data.annotationName) : null;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_evaluators (id, evaluator_id, dataset_id, input_mapping, annotation_name, created_at)
        SELECT ${datasetEvaluatorId}, ${evaluatorId}, ${datasetId}, ${mapping}, ${annotationName}, ${at}
        WHERE EXISTS (SELECT 1 FROM evaluators WHERE id = ${evaluatorId})
        ON CONFLICT (id) DO NOTHING`);
      return;
    }
    case 'DatasetEvaluatorDetached': {
      const datasetEvaluatorId = id(event.data?.datasetEvaluatorId);
      if (datasetEvaluatorId !== null) await tx.query(sql.unsafe`DELETE FROM dataset_evaluators WHERE id = ${datasetEvaluatorId}`);
      return;
    }
  }
};

/** A failed evaluation, shown on its evaluator's page. */
export const applyEvaluationFailed = async (tx: DatabaseTransactionConnection, event: StoredEvent & EvaluationFailed): Promise<void> => {
  const d = event.data;
  const attachmentId = id(d?.attachmentId);
  const evaluatorId = id(d?.evaluatorId);
  const projectId = typeof d?.projectId === 'string' && UUID.test(d.projectId) ? d.projectId.toLowerCase() : null;
  if (attachmentId === null || evaluatorId === null || projectId === null) return;
  await tx.query(sql.unsafe`
    INSERT INTO evaluation_failures (attachment_id, version, target, target_id, evaluator_id, project_id, error, attempts, failed_at, event_id)
    VALUES (${attachmentId}, ${id(d.version) ?? 1}, ${storableName(text(d.target))}, ${storableName(text(d.targetId))}, ${evaluatorId},
      ${projectId}, ${clippedText(text(d.error), 4000)}, ${id(d.attempts) ?? 1}, ${event.metadata.time}, ${event.id})
    ON CONFLICT DO NOTHING`);
};

/**
 * An erasure rewrote events (projections/retention/erasureReactor.ts): a failure among them judged
 * an erased target, and its row forgets the error text as the log did (a rebuild reads the rewritten event).
 */
export const applyContentRemoved = async (tx: DatabaseTransactionConnection, event: StoredEvent & ContentRemoved): Promise<void> => {
  const erased = Array.isArray(event.data?.erased) ? event.data.erased.map((e) => e?.id).filter((i) => typeof i === 'string') : [];
  if (erased.length === 0) return;
  await tx.query(sql.unsafe`
    UPDATE evaluation_failures SET error = ${ERASED_ERROR} WHERE event_id = ANY(${sql.array(erased, 'text')})`);
};
