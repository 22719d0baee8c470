import { type ModelClient, ModelRefusal } from '../modelCalls/modelCall.ts';
import { renderTemplate } from '../base/renderTemplate.ts';
import type { JsonValue } from '../base/jsonValue.ts';
import type { LlmEvaluatorSpec } from './evaluatorDefinition.ts';
import type { EvaluationResult, LlmJudge } from './runEvaluator.ts';

/** The tool the judge is asked to answer with: one of the choices, and why. */
export const JUDGMENT_TOOL = 'record_judgment';

const judgmentTool = (labels: readonly string[]) => ({
  type: 'function',
  function: {
    name: JUDGMENT_TOOL,
    description: 'Record your judgment: one of the allowed labels, and a short explanation of why.',
    parameters: {
      type: 'object',
      properties: {
        explanation: { type: 'string', description: 'Why this label, in a sentence or two (written first).' },
        label: { type: 'string', enum: labels },
      },
      required: ['explanation', 'label'],
    },
  },
});

/** A provider's refusal worth trying again: rate limits, its own failures, timeouts, an unreachable host. */
const RETRYABLE = /\b429\b|\(5\d\d\)|timeout|could not be reached/i;

/** The label a text answer names: the longest choice it contains as a word (case-insensitive), else null. */
export const labelInText = (text: string, labels: readonly string[]): string | null => {
  const lower = text.toLowerCase();
  const found = [...labels]
    .sort((a, b) => b.length - a.length)
    .find((l) =>
      new RegExp(`(^|[^\\p{L}\\p{N}_])${l.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}_])`, 'u').test(lower),
    );
  return found ?? null;
};

/**
 * An LLM judge over the model-provider port: the template rendered with the mapped arguments,
 * sent with one tool (`record_judgment`: a label among the choices and an explanation); a text
 * answer that names a choice counts too. The provider and its key follow the playground's rules
 * with nothing chosen by the evaluator: the configured endpoint and the provider's stored key,
 * never a base URL a member could point a stored key at.
 */
export const createLlmJudge =
  (models: ModelClient, options: { readonly cancelled?: AbortSignal } = {}): LlmJudge =>
  async (spec: LlmEvaluatorSpec, variables: Readonly<Record<string, JsonValue>>): Promise<EvaluationResult> => {
    const labels = Object.keys(spec.outputConfig.choices);
    const messages = [];
    for (const m of spec.template ?? []) {
      const rendered = renderTemplate(spec.templateFormat, m.content, variables);
      if ('problem' in rendered) return { ok: false, error: `template: ${rendered.problem}`, retryable: false };
      messages.push({ role: m.role, content: rendered.text });
    }
    if (messages.length === 0) return { ok: false, error: 'the evaluator has no template to send', retryable: false };
    let endpoint: Awaited<ReturnType<ModelClient['endpoint']>>;
    try {
      endpoint = await models.endpoint({
        provider: spec.provider,
        baseUrl: null,
        apiKeySecret: undefined,
        apiKey: undefined,
        mayRouteSecrets: false,
      });
    } catch (error) {
      if (error instanceof ModelRefusal) return { ok: false, error: error.message, retryable: false };
      throw error;
    }
    const answer = await models.call(
      endpoint,
      { model: spec.modelName, messages, parameters: spec.invocationParameters, tools: [judgmentTool(labels)] },
      { cancelled: options.cancelled ?? new AbortController().signal },
    );
    if (answer.error !== null) return { ok: false, error: answer.error, retryable: RETRYABLE.test(answer.error) };
    const call = answer.toolCalls.find((c) => c.name === JUDGMENT_TOOL);
    let label: string | null = null;
    let explanation: string | null = null;
    if (call) {
      try {
        const args = JSON.parse(call.arguments) as { label?: unknown; explanation?: unknown };
        label = typeof args.label === 'string' && labels.includes(args.label) ? args.label : null;
        explanation = typeof args.explanation === 'string' ? args.explanation : null;
      } catch {
        // unreadable arguments: the text may still name a choice
      }
    }
    label ??= labelInText(answer.text, labels);
    if (label === null) return { ok: false, error: `the judge answered none of the choices (${labels.join(', ')})`, retryable: false };
    return {
      ok: true,
      verdict: { label, score: spec.outputConfig.choices[label] ?? null, explanation: explanation ?? (answer.text || null) },
    };
  };
