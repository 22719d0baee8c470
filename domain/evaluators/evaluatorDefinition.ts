import { RE2JS } from 're2js';
import { BUILT_IN_EVALUATORS, type BuiltInName } from './builtInEvaluators.ts';
import type { BuiltInEvaluatorSpec, EvaluatorDefinition, EvaluatorKind, LlmEvaluatorSpec } from './events.ts';

export type {
  BuiltInEvaluatorSpec,
  CodeEvaluatorSpec,
  EvaluatorDefinition,
  EvaluatorKind,
  EvaluatorSpec,
  LlmEvaluatorSpec,
  OptimizationDirection,
  TemplateFormat,
  TemplateMessage,
} from './events.ts';

export const EVALUATOR_KINDS: readonly EvaluatorKind[] = ['LLM', 'CODE', 'BUILTIN'];

/** A broken rule of a definition, with the (wire) field it is about. */
export type DefinitionProblem = { readonly field: string; readonly message: string };

export const MAX_SOURCE_BYTES = 64 * 1024;
const NAME = /^[^\u0000-\u001f]{1,200}$/;

const builtInProblems = (spec: BuiltInEvaluatorSpec): DefinitionProblem[] => {
  const builtIn = BUILT_IN_EVALUATORS[spec.builtIn as BuiltInName] as (typeof BUILT_IN_EVALUATORS)[BuiltInName] | undefined;
  if (!Object.hasOwn(BUILT_IN_EVALUATORS, spec.builtIn) || builtIn === undefined)
    return [
      {
        field: 'built_in',
        message: `unknown built-in evaluator "${spec.builtIn}" (known: ${Object.keys(BUILT_IN_EVALUATORS).join(', ')})`,
      },
    ];
  return builtIn.problems(spec.parameters).map((message) => ({ field: 'parameters', message }));
};

const llmProblems = (spec: LlmEvaluatorSpec): DefinitionProblem[] => {
  const problems: DefinitionProblem[] = [];
  if (spec.provider.trim() === '') problems.push({ field: 'provider', message: 'must not be empty' });
  if (spec.modelName.trim() === '') problems.push({ field: 'model_name', message: 'must not be empty' });
  if ((spec.template === null || spec.template.length === 0) && spec.promptVersionId === null)
    problems.push({ field: 'template', message: 'a template or a prompt_version_id is required' });
  const labels = Object.keys(spec.outputConfig.choices);
  if (labels.length === 0) problems.push({ field: 'output_config.choices', message: 'at least one choice is required' });
  for (const label of labels)
    if (!Number.isFinite(spec.outputConfig.choices[label]))
      problems.push({ field: `output_config.choices.${label}`, message: 'the score must be a finite number' });
  return problems;
};

/**
 * Every rule of a definition the decider can check by itself (pure). Whether code parses is asked
 * of the sandbox before the command (codeSandbox.ts): it needs the engine.
 */
export const definitionProblems = (d: EvaluatorDefinition): DefinitionProblem[] => {
  const problems: DefinitionProblem[] = [];
  if (!NAME.test(d.name) || d.name.trim() === '')
    problems.push({ field: 'name', message: 'must be 1-200 characters without control characters' });
  switch (d.kind) {
    case 'LLM':
      return [...problems, ...llmProblems(d)];
    case 'CODE':
      if (d.language !== 'JAVASCRIPT') problems.push({ field: 'language', message: 'only JAVASCRIPT is supported' });
      if (Buffer.byteLength(d.sourceCode) > MAX_SOURCE_BYTES)
        problems.push({ field: 'source_code', message: `must be at most ${MAX_SOURCE_BYTES} bytes` });
      return problems;
    case 'BUILTIN':
      return [...problems, ...builtInProblems(d)];
    default:
      return [...problems, { field: 'kind', message: `unknown kind (one of ${EVALUATOR_KINDS.join(', ')})` }];
  }
};

/** Whether `pattern` is one the linear-time engine accepts (a backtracking-only feature is refused). */
export const regexProblem = (pattern: string): string | null => {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return `not a valid pattern: ${(error as Error).message}`;
  }
};
