import type { JsonValue } from '../base/jsonValue.ts';
import { BUILT_IN_EVALUATORS, isBuiltInName } from './builtInEvaluators.ts';
import type { CodeSandbox } from './codeSandbox.ts';
import type { EvaluatorDefinition, LlmEvaluatorSpec } from './evaluatorDefinition.ts';
import { type Verdict, verdictOf } from './verdict.ts';

/** What running an evaluator gave: a verdict, or a failure that is worth retrying (a provider's 429, 5xx, timeout) or not. */
export type EvaluationResult =
  | { readonly ok: true; readonly verdict: Verdict }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean };

/** Calls an LLM judge (the model-provider port): the verdict, or why not. */
export type LlmJudge = (spec: LlmEvaluatorSpec, variables: Readonly<Record<string, JsonValue>>) => Promise<EvaluationResult>;

export type EvaluatorPorts = { readonly sandbox: CodeSandbox; readonly llm: LlmJudge | null };

/** Runs one evaluator on its mapped arguments. Never throws for what the evaluator did: that is a failed result. */
export const runEvaluator = async (
  definition: EvaluatorDefinition,
  args: Readonly<Record<string, JsonValue>>,
  ports: EvaluatorPorts,
): Promise<EvaluationResult> => {
  switch (definition.kind) {
    case 'BUILTIN': {
      if (!isBuiltInName(definition.builtIn)) return { ok: false, error: `unknown built-in ${definition.builtIn}`, retryable: false };
      const verdict = BUILT_IN_EVALUATORS[definition.builtIn].evaluate(definition.parameters, {
        output: args.output,
        expected: args.expected,
      });
      return { ok: true, verdict };
    }
    case 'CODE': {
      const outcome = await ports.sandbox.run(definition.sourceCode, args);
      if (!outcome.ok) return { ok: false, error: outcome.error, retryable: false };
      const verdict = verdictOf(outcome.value);
      return verdict === null
        ? {
            ok: false,
            error: 'evaluate returned no verdict (a number, a boolean, a label or {score, label, explanation})',
            retryable: false,
          }
        : { ok: true, verdict };
    }
    case 'LLM':
      if (ports.llm === null) return { ok: false, error: 'no model provider is configured for LLM evaluators', retryable: false };
      return ports.llm(definition, args);
  }
};
