import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const micros = (column: string) => sql.fragment`(extract(epoch FROM ${sql.identifier(column.split('.'))}) * 1000000)::bigint`;
const json = z.unknown();

const datasetRow = z.object({
  id: z.bigint().transform(Number),
  dataset_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  metadata: json,
  created_us: z.bigint(),
  updated_us: z.bigint(),
  example_count: z.number(),
});
export type DatasetRow = z.infer<typeof datasetRow>;

const versionRow = z.object({
  id: z.bigint().transform(Number),
  version_id: z.string(),
  dataset_id: z.string(),
  description: z.string().nullable(),
  metadata: json,
  created_us: z.bigint(),
});
export type DatasetVersionRow = z.infer<typeof versionRow>;

const versionWithChangesRow = versionRow.extend({ num_created: z.number(), num_patched: z.number(), num_deleted: z.number() });
export type DatasetVersionWithChangesRow = z.infer<typeof versionWithChangesRow>;

const exampleRow = z.object({
  id: z.bigint().transform(Number),
  example_id: z.string(),
  kind: z.enum(['CREATE', 'PATCH', 'DELETE']),
  external_id: z.string().nullable(),
  span_id: z.string().nullable(),
  span_rowid: z.bigint().transform(Number).nullable(),
  input: json,
  output: json,
  metadata: json,
  updated_us: z.bigint(),
  created_us: z.bigint(),
  splits: z.array(z.string()),
});
export type DatasetExampleRow = z.infer<typeof exampleRow>;

const labelRow = z.object({ id: z.bigint().transform(Number), name: z.string(), color: z.string(), description: z.string().nullable() });
export type DatasetLabelRow = z.infer<typeof labelRow>;

const splitRow = z.object({
  id: z.bigint().transform(Number),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string(),
  metadata: json,
  created_us: z.bigint(),
  updated_us: z.bigint(),
  example_count: z.number(),
});
export type DatasetSplitRow = z.infer<typeof splitRow>;

/** Each example's latest revision up to `versionRow` (inclusive); deleted ones included (kind DELETE). */
const latestRevisions = (datasetId: string, versionRow: number) => sql.fragment`
  SELECT DISTINCT ON (example_id) example_id, kind, input, output, metadata, created_at
  FROM dataset_example_revisions WHERE dataset_id = ${datasetId} AND version_row <= ${versionRow}
  ORDER BY example_id, version_row DESC`;

const liveCount = sql.fragment`(SELECT count(*)::int FROM (
    SELECT DISTINCT ON (r.example_id) r.kind FROM dataset_example_revisions r WHERE r.dataset_id = d.dataset_id
    ORDER BY r.example_id, r.version_row DESC) x WHERE x.kind <> 'DELETE')`;

const datasetColumns = sql.fragment`d.id, d.dataset_id::text AS dataset_id, d.name, d.description, d.metadata,
  ${micros('d.created_at')} AS created_us, ${micros('d.updated_at')} AS updated_us, ${liveCount} AS example_count`;

/** Newest first from `cursor` (inclusive); `limit + 1` rows; `name` is an exact match. */
export const listDatasets = (
  db: CommonQueryMethods,
  q: { readonly cursor: number | null; readonly limit: number; readonly name?: string | null },
): Promise<readonly DatasetRow[]> => {
  const where = [
    sql.fragment`true`,
    ...(q.cursor !== null ? [sql.fragment`d.id <= ${q.cursor}`] : []),
    ...(q.name ? [sql.fragment`d.name = ${q.name}`] : []),
  ];
  return db.any(sql.type(datasetRow)`
    SELECT ${datasetColumns} FROM datasets d WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY d.id DESC LIMIT ${q.limit + 1}`);
};

export const findDataset = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly name: string } | { readonly datasetId: string },
): Promise<DatasetRow | null> =>
  db.maybeOne(sql.type(datasetRow)`
    SELECT ${datasetColumns} FROM datasets d
    WHERE ${'id' in by ? sql.fragment`d.id = ${by.id}` : 'name' in by ? sql.fragment`d.name = ${by.name}` : sql.fragment`d.dataset_id = ${by.datasetId}`}`);

const versionColumns = sql.fragment`v.id, v.version_id::text AS version_id, v.dataset_id::text AS dataset_id, v.description, v.metadata,
  ${micros('v.created_at')} AS created_us`;

/** What a version changed: its revisions by kind (one revision per example it touched). */
const changeCounts = sql.fragment`CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE r.kind = 'CREATE')::int AS num_created, count(*) FILTER (WHERE r.kind = 'PATCH')::int AS num_patched,
      count(*) FILTER (WHERE r.kind = 'DELETE')::int AS num_deleted
    FROM dataset_example_revisions r WHERE r.dataset_id = v.dataset_id AND r.version_row = v.id) c`;

/** Newest first from `cursor` (inclusive); `limit + 1` rows, each with how many examples it created, patched and deleted. */
export const listDatasetVersions = (
  db: CommonQueryMethods,
  q: { readonly datasetId: string; readonly cursor: number | null; readonly limit: number },
): Promise<readonly DatasetVersionWithChangesRow[]> =>
  db.any(sql.type(versionWithChangesRow)`
    SELECT ${versionColumns}, c.num_created, c.num_patched, c.num_deleted FROM dataset_versions v ${changeCounts}
    WHERE v.dataset_id = ${q.datasetId} ${q.cursor !== null ? sql.fragment`AND v.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY v.id DESC LIMIT ${q.limit + 1}`);

/** A version by row id or uuid; `latestOf` gives the dataset's latest version. */
export const findDatasetVersion = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly versionId: string } | { readonly latestOf: string },
): Promise<DatasetVersionRow | null> =>
  db.maybeOne(sql.type(versionRow)`
    SELECT ${versionColumns} FROM dataset_versions v
    WHERE ${'id' in by ? sql.fragment`v.id = ${by.id}` : 'versionId' in by ? sql.fragment`v.version_id = ${by.versionId}` : sql.fragment`v.dataset_id = ${by.latestOf}`}
    ORDER BY v.id DESC LIMIT 1`);

/**
 * The examples alive at a version, by example row id ascending, from `after` (exclusive) and at
 * most `limit` (null: all). `splitIds` keeps examples in any of those splits (null: all).
 */
export const examplesAtVersion = (
  db: CommonQueryMethods,
  q: {
    readonly datasetId: string;
    readonly versionRow: number;
    readonly splitIds?: readonly number[] | null;
    readonly exampleIds?: readonly string[] | null;
    readonly afterRow?: number | null;
    readonly limit?: number | null;
  },
): Promise<readonly DatasetExampleRow[]> =>
  db.any(sql.type(exampleRow)`
    SELECT e.id, e.example_id::text AS example_id, r.kind, e.external_id, e.span_id, (SELECT s.id FROM spans s WHERE s.span_id = e.span_id) AS span_rowid,
      r.input, r.output, r.metadata, ${micros('r.created_at')} AS updated_us, ${micros('e.created_at')} AS created_us,
      COALESCE((SELECT array_agg(sp.name ORDER BY sp.name) FROM dataset_split_examples se JOIN dataset_splits sp ON sp.id = se.split_id
        WHERE se.example_id = e.example_id), '{}') AS splits
    FROM (${latestRevisions(q.datasetId, q.versionRow)}) r JOIN dataset_examples e ON e.example_id = r.example_id
    WHERE r.kind <> 'DELETE'
      ${q.splitIds ? sql.fragment`AND EXISTS (SELECT 1 FROM dataset_split_examples se WHERE se.example_id = e.example_id AND se.split_id = ANY(${sql.array([...q.splitIds], 'int8')}))` : sql.fragment``}
      ${q.exampleIds ? sql.fragment`AND e.example_id = ANY(${sql.array([...q.exampleIds], 'uuid')})` : sql.fragment``}
      ${q.afterRow != null ? sql.fragment`AND e.id > ${q.afterRow}` : sql.fragment``}
    ORDER BY e.id ${q.limit != null ? sql.fragment`LIMIT ${q.limit}` : sql.fragment``}`);

const changeRow = z.object({
  id: z.bigint().transform(Number),
  external_id: z.string().nullable(),
  kind: z.enum(['CREATE', 'PATCH', 'DELETE']),
  input: json,
  output: json,
  metadata: json,
  before_input: json.nullable(),
  before_output: json.nullable(),
  before_metadata: json.nullable(),
});
export type DatasetExampleChangeRow = z.infer<typeof changeRow>;

/**
 * The examples one version touched, by example row id from `afterRow` (exclusive), at most `limit`:
 * the content it gave them (for a deletion, the content deleted) and, for a patch, the content before.
 */
export const versionChanges = (
  db: CommonQueryMethods,
  q: { readonly datasetId: string; readonly versionRow: number; readonly afterRow: number | null; readonly limit: number },
): Promise<readonly DatasetExampleChangeRow[]> =>
  db.any(sql.type(changeRow)`
    SELECT e.id, e.external_id, r.kind, r.input, r.output, r.metadata,
      b.input AS before_input, b.output AS before_output, b.metadata AS before_metadata
    FROM dataset_example_revisions r JOIN dataset_examples e ON e.example_id = r.example_id
    LEFT JOIN LATERAL (
      SELECT p.input, p.output, p.metadata FROM dataset_example_revisions p
      WHERE r.kind = 'PATCH' AND p.example_id = r.example_id AND p.version_row < r.version_row
      ORDER BY p.version_row DESC LIMIT 1
    ) b ON true
    WHERE r.dataset_id = ${q.datasetId} AND r.version_row = ${q.versionRow}
      ${q.afterRow !== null ? sql.fragment`AND e.id > ${q.afterRow}` : sql.fragment``}
    ORDER BY e.id LIMIT ${q.limit}`);

/** How many examples a version created (its `CREATE` revisions): what an upload reports back. */
export const countCreatedExamples = (db: CommonQueryMethods, versionRow: number): Promise<number> =>
  db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM dataset_example_revisions WHERE version_row = ${versionRow} AND kind = 'CREATE'`,
  );

const exampleRefRow = z.object({
  id: z.bigint().transform(Number),
  example_id: z.string(),
  dataset_id: z.string(),
  external_id: z.string().nullable(),
  created_us: z.bigint(),
});
export type DatasetExampleRefRow = z.infer<typeof exampleRefRow>;

/** An example by row id (any dataset), whatever its revisions. */
export const findDatasetExample = (db: CommonQueryMethods, id: number): Promise<DatasetExampleRefRow | null> =>
  db.maybeOne(sql.type(exampleRefRow)`
    SELECT e.id, e.example_id::text AS example_id, e.dataset_id::text AS dataset_id, e.external_id, ${micros('e.created_at')} AS created_us
    FROM dataset_examples e WHERE e.id = ${id}`);

const revisionRow = z.object({
  kind: z.enum(['CREATE', 'PATCH', 'DELETE']),
  input: json,
  output: json,
  metadata: json,
  created_us: z.bigint(),
});
export type DatasetExampleRevisionRow = z.infer<typeof revisionRow>;

/** An example's latest revision up to a version (null: the latest of all); null when it has none by then. */
export const exampleRevisionAt = (
  db: CommonQueryMethods,
  exampleId: string,
  versionRow: number | null,
): Promise<DatasetExampleRevisionRow | null> =>
  db.maybeOne(sql.type(revisionRow)`
    SELECT r.kind, r.input, r.output, r.metadata, ${micros('r.created_at')} AS created_us FROM dataset_example_revisions r
    WHERE r.example_id = ${exampleId} ${versionRow !== null ? sql.fragment`AND r.version_row <= ${versionRow}` : sql.fragment``}
    ORDER BY r.version_row DESC LIMIT 1`);

/** Example uuids of a dataset by their row ids (DatasetExample GlobalIDs) or external ids. */
export const findDatasetExamples = (
  db: CommonQueryMethods,
  datasetId: string,
  by: { readonly ids: readonly number[] } | { readonly uuids: readonly string[] },
): Promise<readonly { id: number; example_id: string }[]> =>
  db.any(sql.type(z.object({ id: z.bigint().transform(Number), example_id: z.string() }))`
    SELECT id, example_id::text AS example_id FROM dataset_examples WHERE dataset_id = ${datasetId}
    AND ${'ids' in by ? sql.fragment`id = ANY(${sql.array([...by.ids], 'int8')})` : sql.fragment`example_id = ANY(${sql.array([...by.uuids], 'uuid')})`}`);

const labelColumns = sql.fragment`l.id, l.name, l.color, l.description`;

export const listDatasetLabels = (
  db: CommonQueryMethods,
  q: { readonly cursor: number | null; readonly limit: number },
): Promise<readonly DatasetLabelRow[]> =>
  db.any(sql.type(labelRow)`
    SELECT ${labelColumns} FROM dataset_labels l ${q.cursor !== null ? sql.fragment`WHERE l.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY l.id DESC LIMIT ${q.limit + 1}`);

export const findDatasetLabel = (db: CommonQueryMethods, id: number): Promise<DatasetLabelRow | null> =>
  db.maybeOne(sql.type(labelRow)`SELECT ${labelColumns} FROM dataset_labels l WHERE l.id = ${id}`);

export const labelsOfDataset = (db: CommonQueryMethods, datasetId: string): Promise<readonly DatasetLabelRow[]> =>
  db.any(sql.type(labelRow)`
    SELECT ${labelColumns} FROM dataset_labels l JOIN dataset_label_links k ON k.label_id = l.id
    WHERE k.dataset_id = ${datasetId} ORDER BY l.name`);

/** `example_count`: the dataset's examples in the split that a later version has not deleted. */
const splitColumns = (datasetId: string) => sql.fragment`
  sp.id, sp.name, sp.description, sp.color, sp.metadata, ${micros('sp.created_at')} AS created_us, ${micros('sp.updated_at')} AS updated_us,
  (SELECT count(*)::int FROM dataset_split_examples se JOIN dataset_examples e ON e.example_id = se.example_id
    WHERE se.split_id = sp.id AND e.dataset_id = ${datasetId}
      AND (SELECT r.kind FROM dataset_example_revisions r WHERE r.example_id = e.example_id ORDER BY r.version_row DESC LIMIT 1) <> 'DELETE'
  ) AS example_count`;

/** Every split (they are global), by name, with the count of `datasetId`'s examples in it. */
export const listDatasetSplits = (db: CommonQueryMethods, datasetId: string): Promise<readonly DatasetSplitRow[]> =>
  db.any(sql.type(splitRow)`SELECT ${splitColumns(datasetId)} FROM dataset_splits sp ORDER BY sp.name`);

/** The splits one example is in, by name. */
export const splitsOfExample = (db: CommonQueryMethods, datasetId: string, exampleId: string): Promise<readonly DatasetSplitRow[]> =>
  db.any(sql.type(splitRow)`
    SELECT ${splitColumns(datasetId)} FROM dataset_splits sp
    WHERE sp.id IN (SELECT se.split_id FROM dataset_split_examples se WHERE se.example_id = ${exampleId}) ORDER BY sp.name`);

/** A split by row id or name, with the count of `datasetId`'s examples in it. */
export const findDatasetSplit = (
  db: CommonQueryMethods,
  datasetId: string,
  by: { readonly id: number } | { readonly name: string },
): Promise<DatasetSplitRow | null> =>
  db.maybeOne(sql.type(splitRow)`
    SELECT ${splitColumns(datasetId)} FROM dataset_splits sp WHERE ${'id' in by ? sql.fragment`sp.id = ${by.id}` : sql.fragment`sp.name = ${by.name}`}`);

const tagRow = z.object({ id: z.bigint().transform(Number), name: z.string(), description: z.string().nullable() });
export type ExperimentTagRow = z.infer<typeof tagRow>;

/** The tags naming one experiment, by name. */
export const tagsOfExperiment = (db: CommonQueryMethods, experimentId: string): Promise<readonly ExperimentTagRow[]> =>
  db.any(sql.type(tagRow)`SELECT id, name, description FROM dataset_experiment_tags WHERE experiment_id = ${experimentId} ORDER BY name`);

export const findExperimentTag = (
  db: CommonQueryMethods,
  datasetId: string,
  by: { readonly id: number } | { readonly name: string },
): Promise<(ExperimentTagRow & { experiment_id: string }) | null> =>
  db.maybeOne(sql.type(tagRow.extend({ experiment_id: z.string() }))`
    SELECT id, name, description, experiment_id::text AS experiment_id FROM dataset_experiment_tags
    WHERE dataset_id = ${datasetId} AND ${'id' in by ? sql.fragment`id = ${by.id}` : sql.fragment`name = ${by.name}`}`);
