import { z } from 'zod';
import { isoTime } from '../../http/responseSchemas.ts';
import type { ExperimentTagRow } from '../../../projections/datasets/datasetQueries.ts';
import type {
  ExperimentEvaluationRow,
  ExperimentRow,
  ExperimentRunRow,
  IncompleteRunRow,
} from '../../../projections/experiments/experimentQueries.ts';
import { costJson, costSchema } from '../../http/costJson.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';

export const experimentGid = (rowid: number): string => toGlobalId('Experiment', String(rowid));
export const runGid = (rowid: number): string => toGlobalId('ExperimentRun', String(rowid));

/** The shapes of this file's `*Json` functions, as the routes declare them. */
export const experimentSchema = z.object({
  id: z.string(),
  dataset_id: z.string(),
  dataset_version_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  repetitions: z.number(),
  metadata: z.unknown(),
  project_name: z.string().nullable(),
  created_at: isoTime,
  updated_at: isoTime,
  example_count: z.number(),
  successful_run_count: z.number(),
  failed_run_count: z.number(),
  missing_run_count: z.number(),
  cost: costSchema,
});
export const runSchema = z.object({
  id: z.string(),
  experiment_id: z.string(),
  dataset_example_id: z.string(),
  output: z.unknown(),
  repetition_number: z.number(),
  start_time: isoTime,
  end_time: isoTime,
  trace_id: z.string().nullable(),
  error: z.string().nullable(),
});
export const runExampleSchema = z.object({
  id: z.string(),
  node_id: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  metadata: z.unknown(),
  updated_at: isoTime,
  source: z.null(),
});
export const tagSchema = z.object({ id: z.string(), name: z.string(), description: z.string().nullable() });
export const evaluationSchema = z.object({
  name: z.string(),
  annotator_kind: z.string(),
  label: z.string().nullable(),
  score: z.number().nullable(),
  explanation: z.string().nullable(),
  error: z.string().nullable(),
  metadata: z.unknown(),
  trace_id: z.string().nullable(),
  start_time: isoTime,
  end_time: isoTime,
});

export const experimentJson = (row: ExperimentRow) => {
  const expected = row.example_count * row.repetitions;
  return {
    id: experimentGid(row.id),
    dataset_id: toGlobalId('Dataset', String(row.dataset_rowid)),
    dataset_version_id: toGlobalId('DatasetVersion', String(row.version_rowid)),
    name: row.name,
    description: row.description,
    repetitions: row.repetitions,
    metadata: row.metadata,
    project_name: row.project_name,
    created_at: isoFromMicros(row.created_us),
    updated_at: isoFromMicros(row.updated_us),
    example_count: row.example_count,
    successful_run_count: row.successful_run_count,
    failed_run_count: row.failed_run_count,
    missing_run_count: Math.max(0, expected - row.successful_run_count - row.failed_run_count),
    // Loupe (the reference has none): the sum of its runs' trace costs, null while none is priced.
    cost: costJson(row),
  };
};

export const runJson = (row: ExperimentRunRow) => ({
  id: runGid(row.id),
  experiment_id: experimentGid(row.experiment_rowid),
  dataset_example_id: toGlobalId('DatasetExample', String(row.example_rowid)),
  output: row.output,
  repetition_number: row.repetition,
  start_time: isoFromMicros(row.start_us),
  end_time: isoFromMicros(row.end_us),
  trace_id: row.trace_id,
  error: row.error,
});

/** An example as the resume routes show it (content at the experiment's version). */
export const runExampleJson = (
  row: Pick<IncompleteRunRow, 'ex_rowid' | 'ex_external_id' | 'ex_input' | 'ex_output' | 'ex_metadata' | 'ex_updated_us'>,
) => ({
  id: row.ex_external_id ?? toGlobalId('DatasetExample', String(row.ex_rowid)),
  node_id: toGlobalId('DatasetExample', String(row.ex_rowid)),
  input: row.ex_input ?? {},
  output: row.ex_output ?? {},
  metadata: row.ex_metadata ?? {},
  updated_at: isoFromMicros(row.ex_updated_us ?? 0n),
  source: null,
});

export const tagJson = (row: ExperimentTagRow) => ({
  id: toGlobalId('ExperimentTag', String(row.id)),
  name: row.name,
  description: row.description,
});

export const tagBody = z.object({ name: z.string(), description: z.string().nullish() });

export const evaluationJson = (row: ExperimentEvaluationRow) => ({
  name: row.name,
  annotator_kind: row.annotator_kind,
  label: row.label,
  score: row.score,
  explanation: row.explanation,
  error: row.error,
  metadata: row.metadata,
  trace_id: row.trace_id,
  start_time: isoFromMicros(row.start_us),
  end_time: isoFromMicros(row.end_us),
});

const jsonObject = z.record(z.string(), z.unknown());

export const createExperimentBody = z.object({
  name: z.string().nullish(),
  description: z.string().nullish(),
  metadata: jsonObject.nullish(),
  version_id: z.string().nullish(),
  splits: z.array(z.string()).nullish(),
  repetitions: z.number().int().min(1).max(1000).nullish(),
});

export const patchExperimentBody = z
  .object({ name: z.string().min(1).optional(), description: z.string().nullable().optional(), metadata: jsonObject.optional() })
  .refine((b) => Object.keys(b).length > 0, { message: 'at least one of name, description, metadata' });

export const createRunBody = z.object({
  dataset_example_id: z.string(),
  output: z.unknown(),
  repetition_number: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  start_time: z.string(),
  end_time: z.string(),
  trace_id: z.string().nullish(),
  error: z.string().nullish(),
});

export const evaluationBody = z.object({
  experiment_run_id: z.string(),
  name: z.string().min(1),
  annotator_kind: z.enum(['LLM', 'CODE', 'HUMAN']),
  start_time: z.string(),
  end_time: z.string(),
  result: z.object({ label: z.string().nullish(), score: z.number().nullish(), explanation: z.string().nullish() }).nullish(),
  error: z.string().nullish(),
  metadata: jsonObject.nullish(),
  trace_id: z.string().nullish(),
});
