import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { storableJson } from '../../domain/base/storableJson.ts';
import { ANNOTATOR_KINDS } from '../../domain/annotations/events.ts';
import { storableDatasetName, storableDescription, storableObject, uuidOrNull } from '../../domain/datasets/storableExample.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { storableTime } from '../../domain/base/storableTime.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../../domain/base/storableText.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const nextId = (tx: DatabaseTransactionConnection, kind: 'experiment' | 'run' | 'evaluation'): Promise<bigint> =>
  tx.oneFirst(sql.type(z.object({ last: z.bigint() }))`UPDATE experiment_ids SET last = last + 1 WHERE kind = ${kind} RETURNING last`);

/** A time the writer checked, its microseconds kept; anything else (a crafted event, a year 0) is the event's own time. */
const timeOr = (v: unknown, fallback: string): string =>
  typeof v === 'string' && /^\d{4}-/.test(v) && storableTime(v) !== null ? v : fallback;
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? clippedText(v, MESSAGE_MAX_BYTES) : null);
const nameOrNull = (v: unknown): string | null => (typeof v === 'string' ? storableName(v) : null);

/** Experiment events; a dataset's deletion takes its experiments (and their runs and evaluations) with it. */
export const applyExperimentEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = isRecord(event.data) ? event.data : {};
  const at = event.metadata.time;
  const experimentId = uuidOrNull(d.experimentId);
  const removeWhere = async (where: ReturnType<typeof sql.fragment>) => {
    await tx.query(
      sql.unsafe`DELETE FROM experiment_evaluations WHERE experiment_id IN (SELECT experiment_id FROM experiments WHERE ${where})`,
    );
    await tx.query(sql.unsafe`DELETE FROM experiment_runs WHERE experiment_id IN (SELECT experiment_id FROM experiments WHERE ${where})`);
    await tx.query(
      sql.unsafe`DELETE FROM experiment_examples WHERE experiment_id IN (SELECT experiment_id FROM experiments WHERE ${where})`,
    );
    await tx.query(sql.unsafe`DELETE FROM experiments WHERE ${where}`);
  };
  switch (event.type) {
    case 'DatasetDeleted': {
      const datasetId = uuidOrNull(d.datasetId);
      if (datasetId !== null) await removeWhere(sql.fragment`dataset_id = ${datasetId}`);
      return;
    }
    case 'ExperimentCreated': {
      const datasetId = uuidOrNull(d.datasetId);
      const versionId = uuidOrNull(d.versionId);
      if (experimentId === null || datasetId === null || versionId === null) return;
      const found = await tx.oneFirst(
        sql.type(
          z.object({ found: z.boolean() }),
        )`SELECT EXISTS (SELECT 1 FROM experiments WHERE experiment_id = ${experimentId}) AS found`,
      );
      if (found) return;
      const exampleIds = [
        ...new Set((Array.isArray(d.exampleIds) ? d.exampleIds : []).map(uuidOrNull).filter((x): x is string => x !== null)),
      ];
      const repetitions =
        Number.isSafeInteger(d.repetitions) && (d.repetitions as number) >= 1 ? Math.min(d.repetitions as number, 1000) : 1;
      const id = await nextId(tx, 'experiment');
      await tx.query(sql.unsafe`
        INSERT INTO experiments (id, experiment_id, dataset_id, version_id, name, description, metadata, repetitions, project_name,
          example_count, created_at, updated_at)
        VALUES (${id}, ${experimentId}, ${datasetId}, ${versionId}, ${storableDatasetName(d.name)}, ${storableDescription(d.description)},
          ${sql.jsonb(storableObject(d.metadata))}, ${repetitions}, ${storableDatasetName(d.projectName)}, ${exampleIds.length}, ${at}, ${at})`);
      if (exampleIds.length > 0)
        await tx.query(sql.unsafe`
          INSERT INTO experiment_examples (experiment_id, example_id)
          SELECT ${experimentId}, x FROM unnest(${sql.array(exampleIds, 'uuid')}) AS x ON CONFLICT DO NOTHING`);
      return;
    }
    case 'ExperimentUpdated': {
      if (experimentId === null) return;
      const sets = [
        ...('name' in d ? [sql.fragment`name = ${storableDatasetName(d.name)}`] : []),
        ...('description' in d ? [sql.fragment`description = ${storableDescription(d.description)}`] : []),
        ...('metadata' in d ? [sql.fragment`metadata = ${sql.jsonb(storableObject(d.metadata))}`] : []),
        sql.fragment`updated_at = ${at}`,
      ];
      await tx.query(sql.unsafe`UPDATE experiments SET ${sql.join(sets, sql.fragment`, `)} WHERE experiment_id = ${experimentId}`);
      return;
    }
    case 'ExperimentDeleted':
      if (experimentId !== null) await removeWhere(sql.fragment`experiment_id = ${experimentId}`);
      return;
    case 'ExperimentRunRecorded': {
      const runId = uuidOrNull(d.runId);
      const exampleId = uuidOrNull(d.exampleId);
      const repetition =
        Number.isSafeInteger(d.repetition) && (d.repetition as number) >= 1 ? Math.min(d.repetition as number, 2 ** 31 - 1) : null;
      if (experimentId === null || runId === null || exampleId === null || repetition === null) return;
      const values = sql.fragment`${sql.jsonb(storableJson(d.output) as never)}, ${timeOr(d.startTime, at)}, ${timeOr(d.endTime, at)},
        ${nameOrNull(d.traceId)}, ${textOrNull(d.error)}`;
      const updated = await tx.query(sql.unsafe`
        UPDATE experiment_runs SET (output, start_time, end_time, trace_id, error) = (${values})
        WHERE experiment_id = ${experimentId} AND example_id = ${exampleId} AND repetition = ${repetition}`);
      if (updated.rowCount > 0) {
        // A retried run has a new output: what evaluators said about the failed attempt no longer applies.
        await tx.query(sql.unsafe`
          DELETE FROM experiment_evaluations WHERE run_id IN (
            SELECT run_id FROM experiment_runs WHERE experiment_id = ${experimentId} AND example_id = ${exampleId} AND repetition = ${repetition})`);
        return;
      }
      if (
        !(await tx.oneFirst(
          sql.type(
            z.object({ found: z.boolean() }),
          )`SELECT EXISTS (SELECT 1 FROM experiments WHERE experiment_id = ${experimentId}) AS found`,
        ))
      )
        return;
      const id = await nextId(tx, 'run');
      await tx.query(sql.unsafe`
        INSERT INTO experiment_runs (id, run_id, experiment_id, example_id, repetition, output, start_time, end_time, trace_id, error)
        VALUES (${id}, ${runId}, ${experimentId}, ${exampleId}, ${repetition}, ${values})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'ExperimentEvaluationRecorded': {
      const runId = uuidOrNull(d.runId);
      if (experimentId === null || runId === null) return;
      const runExists = await tx.oneFirst(
        sql.type(z.object({ found: z.boolean() }))`SELECT EXISTS (SELECT 1 FROM experiment_runs WHERE run_id = ${runId}) AS found`,
      );
      if (!runExists) return;
      const name = storableDatasetName(d.name);
      const kind = ANNOTATOR_KINDS.includes(d.annotatorKind as never) ? (d.annotatorKind as string) : 'CODE';
      const score = typeof d.score === 'number' && Number.isFinite(d.score) ? d.score : null;
      const values = sql.fragment`${kind}, ${nameOrNull(d.label)}, ${score}, ${textOrNull(d.explanation)}, ${textOrNull(d.error)},
        ${sql.jsonb(storableObject(d.metadata))}, ${nameOrNull(d.traceId)}, ${timeOr(d.startTime, at)}, ${timeOr(d.endTime, at)}`;
      const updated = await tx.query(sql.unsafe`
        UPDATE experiment_evaluations SET (annotator_kind, label, score, explanation, error, metadata, trace_id, start_time, end_time) = (${values})
        WHERE run_id = ${runId} AND name = ${name}`);
      if (updated.rowCount > 0) return;
      const id = await nextId(tx, 'evaluation');
      await tx.query(sql.unsafe`
        INSERT INTO experiment_evaluations (id, run_id, experiment_id, name, annotator_kind, label, score, explanation, error, metadata,
          trace_id, start_time, end_time)
        VALUES (${id}, ${runId}, ${experimentId}, ${name}, ${values})`);
      return;
    }
  }
};
