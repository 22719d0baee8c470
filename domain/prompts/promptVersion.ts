import type { JsonObject } from '../base/jsonValue.ts';
import { MAX_DEPTH, MESSAGE_MAX_BYTES, storableText } from '../base/storableText.ts';
import {
  MODEL_PROVIDERS,
  type ModelProvider,
  type PromptTemplate,
  type PromptVersionData,
  TEMPLATE_FORMATS,
  TEMPLATE_TYPES,
} from './events.ts';
import { templateVariables } from '../base/templateVariables.ts';

export {
  type ContentPart,
  MESSAGE_ROLES,
  type MessageRole,
  MODEL_PROVIDERS,
  type ModelProvider,
  type PromptMessage,
  type PromptTemplate,
  type PromptVersionData,
  TEMPLATE_FORMATS,
  TEMPLATE_TYPES,
  type TemplateFormat,
  type TemplateType,
} from './events.ts';

/** The invocation-parameter types each provider takes: its own, or the OpenAI family's. */
export const OPENAI_FAMILY = [
  'openai',
  'azure_openai',
  'deepseek',
  'xai',
  'ollama',
  'cerebras',
  'fireworks',
  'groq',
  'moonshot',
  'perplexity',
  'together',
] as const;
const OWN_PARAMETERS: Partial<Record<ModelProvider, string>> = { ANTHROPIC: 'anthropic', GOOGLE: 'google', AWS: 'aws' };
const parameterTypesOf = (provider: ModelProvider): readonly string[] => {
  const own = OWN_PARAMETERS[provider];
  return own === undefined ? OPENAI_FAMILY : [own];
};

/**
 * As the reference stores them: the OpenAI-compatible discriminators (`azure_openai`,
 * `deepseek`, …) are rewritten to `openai`, whose parameters they share.
 */
export const invocationParametersForWrite = (p: JsonObject): JsonObject => {
  const type = p.type;
  if (typeof type !== 'string' || type === 'openai' || !(OPENAI_FAMILY as readonly string[]).includes(type)) return p;
  return { type: 'openai', openai: p[type] ?? {} };
};

/** A problem with one field: `path` as the body names it below the version (`template.messages.0.content`). */
export type PromptProblem = { readonly path: string; readonly message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every string (and key) of a JSON value must be text Postgres can hold, and the nesting at most
 * MAX_DEPTH deep: refused here rather than altered, so what is acknowledged is what is stored.
 */
export const jsonProblems = (path: string, value: unknown, problems: PromptProblem[], depth = 1): void => {
  if (problems.length >= 5) return;
  if (typeof value === 'string') {
    if (storableText(value) !== value) problems.push({ path, message: 'must not contain NUL characters or unpaired UTF-16 surrogates' });
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) problems.push({ path, message: 'must be a finite number' });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_DEPTH) {
    problems.push({ path, message: `must not be nested more than ${MAX_DEPTH} levels deep` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((x, i) => jsonProblems(`${path}.${i}`, x, problems, depth + 1));
    return;
  }
  for (const [k, x] of Object.entries(value)) {
    if (storableText(k) !== k) problems.push({ path, message: 'keys must not contain NUL characters or unpaired UTF-16 surrogates' });
    jsonProblems(`${path}.${k}`, x, problems, depth + 1);
  }
};

/** The texts a template format applies to, with their paths: message contents and text parts. */
const templateTexts = (t: PromptTemplate): { path: string; text: string }[] => {
  if (t.type === 'string') return [{ path: 'template.template', text: t.template }];
  return t.messages.flatMap((m, i) =>
    typeof m.content === 'string'
      ? [{ path: `template.messages.${i}.content`, text: m.content }]
      : m.content.flatMap((part, j) =>
          part.type === 'text' ? [{ path: `template.messages.${i}.content.${j}.text`, text: part.text }] : [],
        ),
  );
};

/** The variables a version's template uses, in order of first use; [] for format NONE. */
export const promptVersionVariables = (v: Pick<PromptVersionData, 'template' | 'templateFormat'>): string[] => {
  const seen = new Set<string>();
  for (const { text } of templateTexts(v.template)) {
    const parsed = templateVariables(v.templateFormat, text);
    if ('variables' in parsed) for (const name of parsed.variables) seen.add(name);
  }
  return [...seen];
};

/**
 * The rules a version must keep, each naming its field; [] when it is valid. The wire shape of
 * the nested documents is the edge's to check; these are the rules across fields.
 */
export const promptVersionProblems = (v: PromptVersionData): PromptProblem[] => {
  const problems: PromptProblem[] = [];
  if (!MODEL_PROVIDERS.includes(v.modelProvider))
    problems.push({
      path: 'model_provider',
      message: `unknown model provider "${String(v.modelProvider)}"; one of ${MODEL_PROVIDERS.join(', ')}`,
    });
  if (!TEMPLATE_TYPES.includes(v.templateType))
    problems.push({ path: 'template_type', message: `must be one of ${TEMPLATE_TYPES.join(', ')}` });
  if (!TEMPLATE_FORMATS.includes(v.templateFormat))
    problems.push({ path: 'template_format', message: `must be one of ${TEMPLATE_FORMATS.join(', ')}` });
  const expectedTemplate = v.templateType === 'CHAT' ? 'chat' : 'string';
  if (v.template?.type !== expectedTemplate)
    problems.push({
      path: 'template.type',
      message: `template_type ${v.templateType} needs a "${expectedTemplate}" template, got "${String(v.template?.type)}"`,
    });
  if (MODEL_PROVIDERS.includes(v.modelProvider)) {
    const allowed = parameterTypesOf(v.modelProvider);
    const type = v.invocationParameters.type;
    if (typeof type !== 'string' || !allowed.includes(type))
      problems.push({
        path: 'invocation_parameters.type',
        message: `"${String(type)}" parameters do not fit model provider ${v.modelProvider}; expected ${allowed.map((t) => `"${t}"`).join(' or ')}`,
      });
  }
  const anthropic = v.invocationParameters.anthropic;
  if (isRecord(anthropic) && isRecord(anthropic.thinking) && anthropic.thinking.type === 'enabled') {
    const budget = anthropic.thinking.budget_tokens;
    if (typeof budget === 'number' && typeof anthropic.max_tokens === 'number' && budget >= anthropic.max_tokens)
      problems.push({
        path: 'invocation_parameters.anthropic.thinking.budget_tokens',
        message: 'the thinking budget must be less than max_tokens',
      });
  }
  if (v.description !== null && Buffer.byteLength(v.description, 'utf8') > MESSAGE_MAX_BYTES)
    problems.push({ path: 'description', message: `must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8` });
  if (v.template?.type === expectedTemplate)
    for (const { path, text } of templateTexts(v.template)) {
      const parsed = templateVariables(v.templateFormat, text);
      if ('problem' in parsed) problems.push({ path, message: `${v.templateFormat} template: ${parsed.problem}` });
    }
  jsonProblems('description', v.description, problems);
  jsonProblems('model_name', v.modelName, problems);
  jsonProblems('template', v.template, problems);
  jsonProblems('invocation_parameters', v.invocationParameters, problems);
  jsonProblems('tools', v.tools, problems);
  jsonProblems('response_format', v.responseFormat, problems);
  return problems.slice(0, 5);
};
