import type { EvaluatorDefinition } from '../../domain/evaluators/evaluatorDefinition.ts';
import type { EvaluatorRow, ProjectEvaluatorRow } from '../../projections/evaluators/evaluatorQueries.ts';
import { globalIdOf } from '../http/globalId.ts';
import { EVALUATOR_TYPES } from '../rest/evaluators/evaluatorJson.ts';
import { PROJECT_EVALUATOR_TYPE } from '../rest/evaluators/projectEvaluatorJson.ts';
import {
  BuiltInEvaluator,
  CodeEvaluator,
  type Evaluator,
  EvaluatorInputMapping,
  LLMEvaluator,
  ProjectEvaluator,
} from './types/evaluatorTypes.ts';

/** A read-model row as the object of its kind (the interface resolves by class). */
export const evaluatorOf = (row: EvaluatorRow): Evaluator => {
  const d = row.definition as unknown as EvaluatorDefinition;
  const common = {
    id: globalIdOf(EVALUATOR_TYPES[d.kind], row.id),
    rowid: row.id,
    name: row.name,
    description: row.description,
    kind: d.kind,
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  switch (d.kind) {
    case 'LLM':
      return Object.assign(new LLMEvaluator(), common, {
        provider: d.provider,
        modelName: d.modelName,
        invocationParameters: d.invocationParameters,
        template: d.template,
        promptVersionId: d.promptVersionId,
        templateFormat: d.templateFormat,
        outputConfig: { ...d.outputConfig },
      });
    case 'CODE':
      return Object.assign(new CodeEvaluator(), common, { language: d.language, sourceCode: d.sourceCode });
    case 'BUILTIN':
      return Object.assign(new BuiltInEvaluator(), common, { builtIn: d.builtIn, parameters: d.parameters });
  }
};

export const projectEvaluatorOf = (row: ProjectEvaluatorRow): ProjectEvaluator =>
  Object.assign(new ProjectEvaluator(), {
    id: globalIdOf(PROJECT_EVALUATOR_TYPE, row.id),
    evaluatorRowid: row.evaluator_id,
    target: row.target,
    samplingRate: row.sampling_rate,
    filter: row.filter,
    inputMapping: Object.assign(new EvaluatorInputMapping(), {
      pathMapping: row.input_mapping.pathMapping,
      literalMapping: row.input_mapping.literalMapping,
    }),
    annotationName: row.annotation_name,
    delaySeconds: row.delay_seconds,
    enabled: row.enabled,
  });
