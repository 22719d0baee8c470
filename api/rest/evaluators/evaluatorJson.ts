import { z } from 'zod';
import { isoTime } from '../../http/responseSchemas.ts';
import type { EvaluatorDefinition, EvaluatorKind } from '../../../domain/evaluators/evaluatorDefinition.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import type { EvaluatorRow } from '../../../projections/evaluators/evaluatorQueries.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';

/** The GlobalID type of each kind: the reference's GraphQL names. They share one id space. */
export const EVALUATOR_TYPES: Readonly<Record<EvaluatorKind, string>> = {
  LLM: 'LLMEvaluator',
  CODE: 'CodeEvaluator',
  BUILTIN: 'BuiltInEvaluator',
};

/** An evaluator GlobalID of any kind, or null. */
export const evaluatorRowidOf = (raw: string): number | null => {
  for (const type of Object.values(EVALUATOR_TYPES)) {
    const id = rowidOf(type, raw);
    if (id !== null) return id;
  }
  return null;
};

const json = z.record(z.string(), z.unknown()).transform((o) => o as JsonObject);
const common = { name: z.string(), description: z.string().nullish() };

/** `POST /v1/evaluators`: the evaluator, discriminated by `kind` (an unknown kind is a 422 naming `body.kind`). */
export const evaluatorBody = z.discriminatedUnion('kind', [
  z.object({
    ...common,
    kind: z.literal('LLM'),
    provider: z.string(),
    model_name: z.string(),
    invocation_parameters: json.nullish(),
    template: z.array(z.object({ role: z.string(), content: z.string() })).nullish(),
    prompt_version_id: z.string().nullish(),
    template_format: z.enum(['MUSTACHE', 'F_STRING', 'NONE']).default('MUSTACHE'),
    output_config: z.object({
      choices: z.record(z.string(), z.number()),
      optimization_direction: z.enum(['MAXIMIZE', 'MINIMIZE', 'NONE']).default('MAXIMIZE'),
    }),
  }),
  z.object({ ...common, kind: z.literal('CODE'), language: z.literal('JAVASCRIPT').default('JAVASCRIPT'), source_code: z.string() }),
  z.object({ ...common, kind: z.literal('BUILTIN'), built_in: z.string(), parameters: json.nullish() }),
]);
export type EvaluatorBody = z.infer<typeof evaluatorBody>;

export const definitionFromJson = (b: EvaluatorBody): EvaluatorDefinition => {
  const base = { name: b.name, description: b.description ?? null };
  switch (b.kind) {
    case 'LLM':
      return {
        ...base,
        kind: 'LLM',
        provider: b.provider,
        modelName: b.model_name,
        invocationParameters: b.invocation_parameters ?? {},
        template: b.template ?? null,
        promptVersionId: b.prompt_version_id ?? null,
        templateFormat: b.template_format,
        outputConfig: { choices: b.output_config.choices, optimizationDirection: b.output_config.optimization_direction },
      };
    case 'CODE':
      return { ...base, kind: 'CODE', language: b.language, sourceCode: b.source_code };
    case 'BUILTIN':
      return { ...base, kind: 'BUILTIN', builtIn: b.built_in as never, parameters: b.parameters ?? {} };
  }
};

/** The definition's own fields on the wire (what a PATCH merges into). */
export const definitionJson = (d: EvaluatorDefinition): Record<string, unknown> => {
  const base = { name: d.name, kind: d.kind, description: d.description };
  switch (d.kind) {
    case 'LLM':
      return {
        ...base,
        provider: d.provider,
        model_name: d.modelName,
        invocation_parameters: d.invocationParameters,
        template: d.template,
        prompt_version_id: d.promptVersionId,
        template_format: d.templateFormat,
        output_config: { choices: d.outputConfig.choices, optimization_direction: d.outputConfig.optimizationDirection },
      };
    case 'CODE':
      return { ...base, language: d.language, source_code: d.sourceCode };
    case 'BUILTIN':
      return { ...base, built_in: d.builtIn, parameters: d.parameters };
  }
};

/** `evaluatorJson`'s shape: the definition's own fields (name, kind, ...) depend on its kind (`definitionJson`) and pass unchecked. */
export const evaluatorSchema = z.object({
  id: z.string(),
  version: z.number(),
  created_at: isoTime,
  updated_at: isoTime,
});

export const evaluatorJson = (row: EvaluatorRow) => ({
  id: globalIdOf(EVALUATOR_TYPES[row.kind as EvaluatorKind] ?? 'Evaluator', row.id),
  ...definitionJson(row.definition as unknown as EvaluatorDefinition),
  version: row.version,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
