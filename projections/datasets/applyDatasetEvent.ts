import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { exampleHash } from '../../domain/datasets/exampleHash.ts';
import type { ExampleData } from '../../domain/datasets/events.ts';
import {
  storableDatasetName,
  storableDescription,
  storableExample,
  storableObject,
  storablePatch,
  uuidOrNull,
} from '../../domain/datasets/storableExample.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const reserveIds = (tx: DatabaseTransactionConnection, kind: 'dataset' | 'version' | 'example' | 'tag', n: number): Promise<bigint> =>
  tx.oneFirst(sql.type(z.object({ last: z.bigint() }))`UPDATE dataset_ids SET last = last + ${n} WHERE kind = ${kind} RETURNING last`);

const exists = async (tx: DatabaseTransactionConnection, query: ReturnType<typeof sql.fragment>): Promise<boolean> =>
  (await tx.oneFirst(sql.type(z.object({ found: z.boolean() }))`SELECT EXISTS (${query}) AS found`)) === true;

/** Staged rows of one upload (or of one inline addition, staged under its version id). */
export const stageExamples = async (tx: DatabaseTransactionConnection, uploadId: string, seq: number, raw: readonly unknown[]) => {
  const rows = raw
    .map(storableExample)
    .filter((e): e is ExampleData => e !== null)
    .map((e, pos) => ({
      pos,
      example_id: e.exampleId,
      external_id: e.externalId,
      span_id: e.spanId,
      input: e.input,
      output: e.output,
      metadata: e.metadata,
      splits: e.splits,
      hash: exampleHash(e),
    }));
  if (rows.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO dataset_staged_examples (upload_id, seq, pos, example_id, external_id, span_id, input, output, metadata, splits, hash)
    SELECT ${uploadId}, ${seq}, x.pos, x.example_id, x.external_id, x.span_id, x.input, x.output, x.metadata, x.splits, x.hash
    FROM jsonb_to_recordset(${sql.jsonb(rows as never)}) AS x(pos int, example_id uuid, external_id text, span_id text,
      input jsonb, output jsonb, metadata jsonb, splits jsonb, hash text)
    WHERE NOT EXISTS (SELECT 1 FROM dataset_examples e WHERE e.example_id = x.example_id)
    ON CONFLICT DO NOTHING`);
};

/**
 * Takes the staged examples of `uploadId` into the version: those whose content the dataset
 * already has (an example alive at the previous version with the same hash) are dropped, the rest
 * become examples with a CREATE revision and join the splits they name.
 */
const takeStaged = async (tx: DatabaseTransactionConnection, datasetId: string, versionRow: bigint, uploadId: string, at: string) => {
  await tx.query(sql.unsafe`
    DELETE FROM dataset_staged_examples s
    WHERE s.upload_id = ${uploadId} AND s.hash IN (
      SELECT r.hash FROM (
        SELECT DISTINCT ON (example_id) hash, kind FROM dataset_example_revisions
        WHERE dataset_id = ${datasetId} AND version_row < ${versionRow}
        ORDER BY example_id, version_row DESC
      ) r WHERE r.kind <> 'DELETE')`);
  const n = await tx.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM dataset_staged_examples WHERE upload_id = ${uploadId}`,
  );
  if (n === 0) return 0;
  const last = await reserveIds(tx, 'example', n);
  const first = last - BigInt(n);
  await tx.query(sql.unsafe`
    INSERT INTO dataset_examples (id, example_id, dataset_id, external_id, span_id, created_at)
    SELECT ${first} + row_number() OVER (ORDER BY seq, pos), example_id, ${datasetId}, external_id, span_id, ${at}
    FROM dataset_staged_examples WHERE upload_id = ${uploadId}`);
  await tx.query(sql.unsafe`
    INSERT INTO dataset_example_revisions (example_id, version_row, dataset_id, kind, input, output, metadata, hash, created_at)
    SELECT example_id, ${versionRow}, ${datasetId}, 'CREATE', input, output, metadata, hash, ${at}
    FROM dataset_staged_examples WHERE upload_id = ${uploadId}`);
  await tx.query(sql.unsafe`
    INSERT INTO dataset_split_examples (split_id, example_id)
    SELECT sp.id, s.example_id FROM dataset_staged_examples s
    CROSS JOIN LATERAL jsonb_array_elements_text(s.splits) AS n(name)
    JOIN dataset_splits sp ON sp.name = n.name
    WHERE s.upload_id = ${uploadId}
    ON CONFLICT DO NOTHING`);
  await tx.query(sql.unsafe`DELETE FROM dataset_staged_examples WHERE upload_id = ${uploadId}`);
  return n;
};

const versionRowOf = (tx: DatabaseTransactionConnection, versionId: string) =>
  tx.maybeOneFirst(sql.type(z.object({ id: z.bigint() }))`SELECT id FROM dataset_versions WHERE version_id = ${versionId}`);

/** Example ids of `raw` that are alive in the dataset at the version before `versionRow`. */
const aliveBefore = (datasetId: string, versionRow: bigint) => sql.fragment`
  SELECT example_id FROM (
    SELECT DISTINCT ON (example_id) example_id, kind FROM dataset_example_revisions
    WHERE dataset_id = ${datasetId} AND version_row < ${versionRow}
    ORDER BY example_id, version_row DESC
  ) r WHERE r.kind <> 'DELETE'`;

/**
 * One dataset event. Every field is made storable first (domain/datasets/storableExample.ts);
 * events about another incarnation, a missing dataset or version, or an example the dataset does
 * not have (only in a crafted event) leave the tables as they were.
 */
export const applyDatasetEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = isRecord(event.data) ? event.data : {};
  const at = event.metadata.time;
  if (event.type === 'DatasetExamplesStaged') {
    const uploadId = uuidOrNull(d.uploadId);
    if (uploadId !== null && Number.isSafeInteger(d.seq)) await stageExamples(tx, uploadId, d.seq as number, list(d.examples));
    return;
  }
  if (event.type === 'ExperimentDeleted') {
    const experimentId = uuidOrNull(d.experimentId);
    if (experimentId !== null) await tx.query(sql.unsafe`DELETE FROM dataset_experiment_tags WHERE experiment_id = ${experimentId}`);
    return;
  }
  const datasetId = uuidOrNull(d.datasetId);
  if (datasetId === null) return;
  const known = () => exists(tx, sql.fragment`SELECT 1 FROM datasets WHERE dataset_id = ${datasetId}`);
  switch (event.type) {
    case 'DatasetCreated': {
      const name = storableDatasetName(d.name);
      if (await exists(tx, sql.fragment`SELECT 1 FROM datasets WHERE dataset_id = ${datasetId} OR name = ${name}`)) return;
      const id = await reserveIds(tx, 'dataset', 1);
      await tx.query(sql.unsafe`
        INSERT INTO datasets (id, dataset_id, name, description, metadata, created_at, updated_at)
        VALUES (${id}, ${datasetId}, ${name}, ${storableDescription(d.description)}, ${sql.jsonb(storableObject(d.metadata))}, ${at}, ${at})`);
      return;
    }
    case 'DatasetVersionCreated': {
      const versionId = uuidOrNull(d.versionId);
      if (versionId === null || !(await known())) return;
      const uploadId = uuidOrNull(d.uploadId);
      if ((await versionRowOf(tx, versionId)) !== null) {
        if (uploadId !== null) await tx.query(sql.unsafe`DELETE FROM dataset_staged_examples WHERE upload_id = ${uploadId}`);
        return;
      }
      const id = await reserveIds(tx, 'version', 1);
      await tx.query(sql.unsafe`
        INSERT INTO dataset_versions (id, version_id, dataset_id, description, metadata, created_at)
        VALUES (${id}, ${versionId}, ${datasetId}, ${storableDescription(d.description)}, ${sql.jsonb(storableObject(d.metadata))}, ${at})`);
      await tx.query(sql.unsafe`UPDATE datasets SET updated_at = ${at} WHERE dataset_id = ${datasetId}`);
      // An upload that changes nothing makes no version (the latest one stays the latest).
      if (uploadId !== null && (await takeStaged(tx, datasetId, id, uploadId, at)) === 0)
        await tx.query(sql.unsafe`DELETE FROM dataset_versions WHERE id = ${id}`);
      return;
    }
    case 'DatasetExamplesAdded': {
      const versionId = uuidOrNull(d.versionId);
      const row = versionId === null ? null : await versionRowOf(tx, versionId);
      if (row === null || versionId === null) return;
      if (await exists(tx, sql.fragment`SELECT 1 FROM dataset_example_revisions WHERE version_row = ${row} AND kind = 'CREATE'`)) return;
      await stageExamples(tx, versionId, 0, list(d.examples));
      await takeStaged(tx, datasetId, row, versionId, at);
      return;
    }
    case 'DatasetExamplesPatched': {
      const versionId = uuidOrNull(d.versionId);
      const row = versionId === null ? null : await versionRowOf(tx, versionId);
      if (row === null) return;
      const patches = list(d.examples)
        .map(storablePatch)
        .filter((p) => p !== null)
        .map((p) => ({ example_id: p.exampleId, input: p.input, output: p.output, metadata: p.metadata, hash: exampleHash(p) }));
      if (patches.length === 0) return;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_example_revisions (example_id, version_row, dataset_id, kind, input, output, metadata, hash, created_at)
        SELECT x.example_id, ${row}, ${datasetId}, 'PATCH', x.input, x.output, x.metadata, x.hash, ${at}
        FROM jsonb_to_recordset(${sql.jsonb(patches as never)}) AS x(example_id uuid, input jsonb, output jsonb, metadata jsonb, hash text)
        WHERE x.example_id IN (${aliveBefore(datasetId, row)})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'DatasetExamplesDeleted': {
      const versionId = uuidOrNull(d.versionId);
      const row = versionId === null ? null : await versionRowOf(tx, versionId);
      const ids = list(d.exampleIds)
        .map(uuidOrNull)
        .filter((x): x is string => x !== null);
      if (row === null || ids.length === 0) return;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_example_revisions (example_id, version_row, dataset_id, kind, input, output, metadata, hash, created_at)
        SELECT r.example_id, ${row}, ${datasetId}, 'DELETE', r.input, r.output, r.metadata, r.hash, ${at}
        FROM (
          SELECT DISTINCT ON (example_id) * FROM dataset_example_revisions
          WHERE dataset_id = ${datasetId} AND version_row < ${row} AND example_id = ANY(${sql.array(ids, 'uuid')})
          ORDER BY example_id, version_row DESC
        ) r WHERE r.kind <> 'DELETE'
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'DatasetRenamed': {
      const name = storableDatasetName(d.name);
      await tx.query(sql.unsafe`
        UPDATE datasets SET name = ${name}, updated_at = ${at}
        WHERE dataset_id = ${datasetId} AND NOT EXISTS (SELECT 1 FROM datasets o WHERE o.name = ${name} AND o.dataset_id <> ${datasetId})`);
      return;
    }
    case 'DatasetUpdated': {
      const sets = [
        ...('description' in d ? [sql.fragment`description = ${storableDescription(d.description)}`] : []),
        ...('metadata' in d ? [sql.fragment`metadata = ${sql.jsonb(storableObject(d.metadata))}`] : []),
        sql.fragment`updated_at = ${at}`,
      ];
      await tx.query(sql.unsafe`UPDATE datasets SET ${sql.join(sets, sql.fragment`, `)} WHERE dataset_id = ${datasetId}`);
      return;
    }
    case 'DatasetLabelsSet': {
      const labelIds = list(d.labelIds).filter((x): x is number => Number.isSafeInteger(x));
      await tx.query(sql.unsafe`DELETE FROM dataset_label_links WHERE dataset_id = ${datasetId}`);
      if (labelIds.length === 0 || !(await known())) return;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_label_links (dataset_id, label_id)
        SELECT ${datasetId}, l.id FROM dataset_labels l WHERE l.id = ANY(${sql.array(labelIds, 'int8')})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'ExperimentTagSet': {
      const experimentId = uuidOrNull(d.experimentId);
      const name = storableDatasetName(d.name);
      if (experimentId === null || !(await known())) return;
      const description = storableDescription(d.description);
      const moved = await tx.query(sql.unsafe`
        UPDATE dataset_experiment_tags SET experiment_id = ${experimentId}, description = ${description}
        WHERE dataset_id = ${datasetId} AND name = ${name}`);
      if (moved.rowCount > 0) return;
      const id = await reserveIds(tx, 'tag', 1);
      await tx.query(sql.unsafe`
        INSERT INTO dataset_experiment_tags (id, dataset_id, name, experiment_id, description)
        VALUES (${id}, ${datasetId}, ${name}, ${experimentId}, ${description})`);
      return;
    }
    case 'ExperimentTagRemoved':
      await tx.query(
        sql.unsafe`DELETE FROM dataset_experiment_tags WHERE dataset_id = ${datasetId} AND name = ${storableDatasetName(d.name)}`,
      );
      return;
    case 'DatasetDeleted':
      await tx.query(sql.unsafe`DELETE FROM dataset_experiment_tags WHERE dataset_id = ${datasetId}`);
      await tx.query(sql.unsafe`
        DELETE FROM dataset_split_examples WHERE example_id IN (SELECT example_id FROM dataset_examples WHERE dataset_id = ${datasetId})`);
      await tx.query(sql.unsafe`DELETE FROM dataset_example_revisions WHERE dataset_id = ${datasetId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_examples WHERE dataset_id = ${datasetId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_versions WHERE dataset_id = ${datasetId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_label_links WHERE dataset_id = ${datasetId}`);
      await tx.query(sql.unsafe`DELETE FROM datasets WHERE dataset_id = ${datasetId}`);
      return;
  }
};

/** Labels and splits: the global vocabularies. A deleted label leaves every dataset; a deleted split every example. */
export const applyDatasetVocabularyEvent = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = isRecord(event.data) ? event.data : {};
  const at = event.metadata.time;
  const labelId = Number.isSafeInteger(d.labelId) ? (d.labelId as number) : null;
  const splitId = Number.isSafeInteger(d.splitId) ? (d.splitId as number) : null;
  const label = isRecord(d.label) ? d.label : {};
  const split = isRecord(d.split) ? d.split : {};
  const color = (v: unknown) => (typeof v === 'string' && /^#[0-9a-fA-F]{6}$/.test(v) ? v : '#808080');
  switch (event.type) {
    case 'DatasetLabelCreated':
      if (labelId === null) return;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_labels (id, name, color, description)
        VALUES (${labelId}, ${storableDatasetName(label.name)}, ${color(label.color)}, ${storableDescription(label.description)})
        ON CONFLICT DO NOTHING`);
      return;
    case 'DatasetLabelUpdated': {
      if (labelId === null) return;
      const name = storableDatasetName(label.name);
      await tx.query(sql.unsafe`
        UPDATE dataset_labels SET name = ${name}, color = ${color(label.color)}, description = ${storableDescription(label.description)}
        WHERE id = ${labelId} AND NOT EXISTS (SELECT 1 FROM dataset_labels o WHERE o.name = ${name} AND o.id <> ${labelId})`);
      return;
    }
    case 'DatasetLabelDeleted':
      if (labelId === null) return;
      await tx.query(sql.unsafe`DELETE FROM dataset_label_links WHERE label_id = ${labelId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_labels WHERE id = ${labelId}`);
      return;
    case 'DatasetSplitCreated':
      if (splitId === null) return;
      await tx.query(sql.unsafe`
        INSERT INTO dataset_splits (id, name, description, color, metadata, created_at, updated_at)
        VALUES (${splitId}, ${storableDatasetName(split.name)}, ${storableDescription(split.description)}, ${color(split.color)},
          ${sql.jsonb(storableObject(split.metadata))}, ${at}, ${at})
        ON CONFLICT DO NOTHING`);
      return;
    case 'DatasetSplitUpdated': {
      if (splitId === null) return;
      const name = storableDatasetName(split.name);
      await tx.query(sql.unsafe`
        UPDATE dataset_splits SET name = ${name}, description = ${storableDescription(split.description)}, color = ${color(split.color)},
          metadata = ${sql.jsonb(storableObject(split.metadata))}, updated_at = ${at}
        WHERE id = ${splitId} AND NOT EXISTS (SELECT 1 FROM dataset_splits o WHERE o.name = ${name} AND o.id <> ${splitId})`);
      return;
    }
    case 'DatasetSplitDeleted':
      if (splitId === null) return;
      await tx.query(sql.unsafe`DELETE FROM dataset_split_examples WHERE split_id = ${splitId}`);
      await tx.query(sql.unsafe`DELETE FROM dataset_splits WHERE id = ${splitId}`);
      return;
    case 'DatasetSplitExamplesChanged': {
      if (splitId === null) return;
      const ids = (v: unknown) =>
        list(v)
          .map(uuidOrNull)
          .filter((x): x is string => x !== null);
      const removed = ids(d.removed);
      const added = ids(d.added).filter((x) => !removed.includes(x));
      if (removed.length > 0)
        await tx.query(
          sql.unsafe`DELETE FROM dataset_split_examples WHERE split_id = ${splitId} AND example_id = ANY(${sql.array(removed, 'uuid')})`,
        );
      if (added.length > 0)
        await tx.query(sql.unsafe`
          INSERT INTO dataset_split_examples (split_id, example_id)
          SELECT ${splitId}, e.example_id FROM dataset_examples e
          WHERE e.example_id = ANY(${sql.array(added, 'uuid')}) AND EXISTS (SELECT 1 FROM dataset_splits WHERE id = ${splitId})
          ON CONFLICT DO NOTHING`);
      await tx.query(sql.unsafe`UPDATE dataset_splits SET updated_at = ${at} WHERE id = ${splitId}`);
      return;
    }
  }
};
