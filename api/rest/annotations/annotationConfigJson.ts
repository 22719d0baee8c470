import { z } from 'zod';
import {
  OPTIMIZATION_DIRECTIONS,
  type AnnotationConfigData,
  type OptimizationDirection,
} from '../../../domain/annotations/annotationConfig.ts';
import type { AnnotationConfigRow } from '../../../projections/annotations/annotationConfigQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';

const CONFIG_TYPES = {
  CATEGORICAL: 'CategoricalAnnotationConfig',
  CONTINUOUS: 'ContinuousAnnotationConfig',
  FREEFORM: 'FreeformAnnotationConfig',
} as const;

/** A config GlobalID of any of the three types (they share one id space), or null. */
export const configRowidOf = (raw: string): number | null => {
  for (const type of Object.values(CONFIG_TYPES)) {
    const id = fromGlobalId(type, raw);
    if (id !== null && /^\d{1,15}$/.test(id)) return Number(id);
  }
  return null;
};

const direction = z.enum(OPTIMIZATION_DIRECTIONS as [OptimizationDirection, ...OptimizationDirection[]]);
const bound = z.number().nullish();

/** The body of `POST`/`PUT /v1/annotation_configs`: the config itself, discriminated by `type`. */
export const annotationConfigBody = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('CATEGORICAL'),
    name: z.string(),
    description: z.string().nullish(),
    optimization_direction: direction,
    values: z.array(z.object({ label: z.string(), score: z.number().nullish() })),
  }),
  z.object({
    type: z.literal('CONTINUOUS'),
    name: z.string(),
    description: z.string().nullish(),
    optimization_direction: direction,
    lower_bound: bound,
    upper_bound: bound,
  }),
  z.object({
    type: z.literal('FREEFORM'),
    name: z.string(),
    description: z.string().nullish(),
    optimization_direction: direction.nullish(),
    threshold: bound,
    lower_bound: bound,
    upper_bound: bound,
  }),
]);

export const configFromJson = (b: z.infer<typeof annotationConfigBody>): AnnotationConfigData => {
  const description = b.description ?? null;
  switch (b.type) {
    case 'CATEGORICAL':
      return {
        type: b.type,
        name: b.name,
        description,
        optimizationDirection: b.optimization_direction,
        values: b.values.map((v) => ({ label: v.label, score: v.score ?? null })),
      };
    case 'CONTINUOUS':
      return {
        type: b.type,
        name: b.name,
        description,
        optimizationDirection: b.optimization_direction,
        lowerBound: b.lower_bound ?? null,
        upperBound: b.upper_bound ?? null,
      };
    case 'FREEFORM':
      return {
        type: b.type,
        name: b.name,
        description,
        optimizationDirection: b.optimization_direction ?? null,
        threshold: b.threshold ?? null,
        lowerBound: b.lower_bound ?? null,
        upperBound: b.upper_bound ?? null,
      };
  }
};

/** `annotationConfigJson`'s shape: the three kinds' fields, each where its kind has it. */
export const annotationConfigSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['CATEGORICAL', 'CONTINUOUS', 'FREEFORM']),
  description: z.string().nullable(),
  optimization_direction: z.string().nullable(),
  values: z.array(z.object({ label: z.string(), score: z.number().nullable() })).optional(),
  lower_bound: z.number().nullable().optional(),
  upper_bound: z.number().nullable().optional(),
  threshold: z.number().nullable().optional(),
});

/** A config as the reference's CategoricalAnnotationConfig / ContinuousAnnotationConfig / FreeformAnnotationConfig. */
export const annotationConfigJson = (row: AnnotationConfigRow) => {
  const base = { id: toGlobalId(CONFIG_TYPES[row.type], String(row.id)), name: row.name, type: row.type, description: row.description };
  switch (row.type) {
    case 'CATEGORICAL':
      return { ...base, optimization_direction: row.optimization_direction, values: row.values ?? [] };
    case 'CONTINUOUS':
      return { ...base, optimization_direction: row.optimization_direction, lower_bound: row.lower_bound, upper_bound: row.upper_bound };
    case 'FREEFORM':
      return {
        ...base,
        optimization_direction: row.optimization_direction,
        threshold: row.threshold,
        lower_bound: row.lower_bound,
        upper_bound: row.upper_bound,
      };
  }
};
