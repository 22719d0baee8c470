import { z } from 'zod';
import { isoTime } from '../../http/responseSchemas.ts';
import { EVALUATION_TARGETS, type EvaluationTarget, type ProjectEvaluatorSettings } from '../../../domain/evaluators/events.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import type { ProjectEvaluatorRow } from '../../../projections/evaluators/evaluatorQueries.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import { EVALUATOR_TYPES } from './evaluatorJson.ts';

export const PROJECT_EVALUATOR_TYPE = 'ProjectEvaluator';

export const projectEvaluatorRowidOf = (raw: string): number | null => rowidOf(PROJECT_EVALUATOR_TYPE, raw);

const inputMapping = z
  .object({
    path_mapping: z.record(z.string(), z.string()).default({}),
    literal_mapping: z
      .record(z.string(), z.unknown())
      .default({})
      .transform((o) => o as JsonObject),
  })
  .default({ path_mapping: {}, literal_mapping: {} });

/**
 * `POST /v1/projects/{id}/evaluators`. The rate is checked here too (a 422 naming
 * `body.sampling_rate`); the decider checks every rule again for the log.
 */
export const projectEvaluatorBody = z.object({
  evaluator_id: z.string(),
  target: z.enum(EVALUATION_TARGETS as [EvaluationTarget, ...EvaluationTarget[]]).default('SPAN'),
  sampling_rate: z.number().min(0).max(1).default(1),
  filter: z.string().nullish(),
  input_mapping: inputMapping,
  annotation_name: z.string().nullish(),
  delay_seconds: z.number().int().min(0).max(86_400).default(0),
  enabled: z.boolean().default(true),
});

/** `PATCH`: any of the settings (not the evaluator). */
export const projectEvaluatorPatch = z.object({
  target: z.enum(EVALUATION_TARGETS as [EvaluationTarget, ...EvaluationTarget[]]).optional(),
  sampling_rate: z.number().min(0).max(1).optional(),
  filter: z.string().nullish(),
  input_mapping: inputMapping.optional(),
  annotation_name: z.string().nullish(),
  delay_seconds: z.number().int().min(0).max(86_400).optional(),
  enabled: z.boolean().optional(),
});

export const backfillBody = z.object({ start_time: z.string(), end_time: z.string() });

export const settingsFromJson = (b: z.infer<typeof projectEvaluatorBody>): ProjectEvaluatorSettings => ({
  target: b.target,
  samplingRate: b.sampling_rate,
  filter: b.filter ?? '',
  inputMapping: { pathMapping: b.input_mapping.path_mapping, literalMapping: b.input_mapping.literal_mapping },
  annotationName: b.annotation_name ?? null,
  delaySeconds: b.delay_seconds,
  enabled: b.enabled,
});

export const settingsOfRow = (row: ProjectEvaluatorRow): ProjectEvaluatorSettings => ({
  target: row.target,
  samplingRate: row.sampling_rate,
  filter: row.filter,
  inputMapping: { pathMapping: row.input_mapping.pathMapping, literalMapping: row.input_mapping.literalMapping as JsonObject },
  annotationName: row.annotation_name,
  delaySeconds: row.delay_seconds,
  enabled: row.enabled,
});

export const patchedSettings = (s: ProjectEvaluatorSettings, p: z.infer<typeof projectEvaluatorPatch>): ProjectEvaluatorSettings => ({
  target: p.target ?? s.target,
  samplingRate: p.sampling_rate ?? s.samplingRate,
  filter: p.filter === undefined ? s.filter : (p.filter ?? ''),
  inputMapping:
    p.input_mapping === undefined
      ? s.inputMapping
      : { pathMapping: p.input_mapping.path_mapping, literalMapping: p.input_mapping.literal_mapping },
  annotationName: p.annotation_name === undefined ? s.annotationName : p.annotation_name,
  delaySeconds: p.delay_seconds ?? s.delaySeconds,
  enabled: p.enabled ?? s.enabled,
});

/** `projectId` is the project's GlobalID (the row knows its uuid only). */
const inputMappingSchema = z.object({ path_mapping: z.record(z.string(), z.string()), literal_mapping: z.record(z.string(), z.unknown()) });

/** `projectEvaluatorJson`'s shape. */
export const projectEvaluatorSchema = z.object({
  id: z.string(),
  evaluator_id: z.string(),
  evaluator_name: z.string(),
  project_id: z.string(),
  target: z.string(),
  sampling_rate: z.number(),
  filter: z.string(),
  input_mapping: inputMappingSchema,
  annotation_name: z.string(),
  delay_seconds: z.number(),
  enabled: z.boolean(),
  created_at: isoTime,
  updated_at: isoTime,
});

/** A dataset's evaluator as `/v1/datasets/{id}/evaluators` shows it. */
export const datasetEvaluatorSchema = z.object({
  id: z.string(),
  dataset_id: z.string(),
  evaluator_id: z.string(),
  evaluator_name: z.string().nullable(),
  annotation_name: z.string().nullable(),
  input_mapping: inputMappingSchema,
  created_at: isoTime,
});

export const projectEvaluatorJson = (
  row: ProjectEvaluatorRow,
  evaluator: { readonly kind: string; readonly name: string },
  projectId: string,
) => ({
  id: globalIdOf(PROJECT_EVALUATOR_TYPE, row.id),
  evaluator_id: globalIdOf(EVALUATOR_TYPES[evaluator.kind as keyof typeof EVALUATOR_TYPES] ?? 'Evaluator', row.evaluator_id),
  evaluator_name: evaluator.name,
  project_id: projectId,
  target: row.target,
  sampling_rate: row.sampling_rate,
  filter: row.filter,
  input_mapping: { path_mapping: row.input_mapping.pathMapping, literal_mapping: row.input_mapping.literalMapping },
  annotation_name: row.annotation_name ?? evaluator.name,
  delay_seconds: row.delay_seconds,
  enabled: row.enabled,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
