import { z } from 'zod';
import { can } from '../../../domain/access/can.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { type ChatMessage, type ModelEndpoint, ModelRefusal, reservedParameters } from '../../../domain/modelCalls/modelCall.ts';
import { renderTemplate, type Variables } from '../../../domain/base/renderTemplate.ts';
import {
  MESSAGE_ROLES,
  type PromptTemplate,
  promptVersionVariables,
  TEMPLATE_FORMATS,
  type TemplateFormat,
} from '../../../domain/prompts/promptVersion.ts';
import { findPromptVersion } from '../../../projections/prompts/promptQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { describeIssues } from '../../http/parseBody.ts';

/** A prompt's content parts (its wire shape): text, an assistant's tool call, a tool's result. */
const textPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const toolCallPart = z.strictObject({
  type: z.literal('tool_call'),
  tool_call_id: z.string().min(1).max(256),
  tool_call: z.strictObject({ type: z.literal('function'), name: z.string().min(1).max(256), arguments: z.string() }),
});
const toolResultPart = z.strictObject({
  type: z.literal('tool_result'),
  tool_call_id: z.string().min(1).max(256),
  tool_result: z.unknown(),
});
const message = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, toolCallPart, toolResultPart]))]),
});

const template = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('chat'), messages: z.array(message).min(1).max(500) }),
  z.strictObject({ type: z.literal('string'), template: z.string() }),
]);
type Template = z.infer<typeof template>;

/**
 * A run: either everything given here, or a stored prompt version (`prompt_version_id`) whose
 * provider, model, template, parameters and tools are used for every field not given here.
 */
export const runFields = {
  prompt_version_id: z.string().max(256).optional(),
  provider: z.string().max(64).optional(),
  model_name: z.string().trim().min(1).max(256).optional(),
  /** An OpenAI-compatible server (Ollama, vLLM, a gateway); required for providers other than OpenAI and Anthropic. */
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullish(),
  /**
   * The stored secret holding the key; `<PROVIDER>_API_KEY` when absent. Naming another one is
   * admin-only (permission `playground.secrets`), as is sending a stored key to a base URL an admin
   * did not configure for the provider.
   */
  api_key_secret: z.string().max(256).optional(),
  /** The caller's own key, sent with this call only (never stored, logged or recorded); "" for none. */
  api_key: z.string().max(4096).optional(),
  template: template.optional(),
  template_format: z.enum(TEMPLATE_FORMATS).optional(),
  variables: z.record(z.string(), z.unknown()).default({}),
  /** Passed to the provider as they are (temperature, max_tokens, ...), in the provider's own names. */
  invocation_parameters: z.record(z.string(), z.unknown()).optional(),
  /** Tool definitions in the provider's own shape (OpenAI's `{type: "function", function}` also works for Anthropic). */
  tools: z.array(z.record(z.string(), z.unknown())).max(128).optional(),
};
export const runBody = z.strictObject(runFields);
type RunFields = z.infer<typeof runBody>;

/** What is run, after the stored version (if any) filled what the request left out. */
export type RunSpec = {
  readonly provider: string;
  readonly model_name: string;
  readonly base_url: string | null;
  readonly api_key_secret: string | undefined;
  readonly api_key: string | undefined;
  readonly template: Template;
  readonly template_format: TemplateFormat;
  readonly variables: Record<string, unknown>;
  readonly invocation_parameters: Record<string, unknown>;
  readonly tools: readonly Record<string, unknown>[];
};

/** Everything a provider call needs except the rendered messages (an experiment renders them per example). */
export type Prepared = {
  readonly spec: RunSpec;
  /** Where the call goes and the key it carries, as the model port's rules let it through. */
  readonly endpoint: ModelEndpoint;
};

export const invalid = (code: string, detail: string): HttpError => new HttpError(422, code, detail);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored version's fields in the shape of the request (parameters unwrapped from `{type, <type>: {...}}`). */
const storedVersion = async (deps: AppDeps, raw: string): Promise<Partial<RunSpec>> => {
  const id = fromGlobalId('PromptVersion', raw);
  if (id === null || !/^\d{1,15}$/.test(id))
    throw invalid('invalid_prompt_version_id', `body.prompt_version_id: ${JSON.stringify(raw.slice(0, 100))} is not a PromptVersion id`);
  const row = await findPromptVersion(deps.pool, { id: Number(id) });
  if (row === null) throw new HttpError(404, 'prompt_version_not_found', `Prompt version ${JSON.stringify(raw)} not found`);
  const stored = template.safeParse(row.template);
  if (!stored.success)
    throw invalid(
      'unsupported_prompt_version',
      `body.prompt_version_id: the playground cannot send this version's template yet (${describeIssues('template', stored.error)})`,
    );
  const params = isRecord(row.invocation_parameters) ? row.invocation_parameters : {};
  const own = typeof params.type === 'string' ? params[params.type] : undefined;
  const tools = isRecord(row.tools) && Array.isArray(row.tools.tools) ? row.tools.tools.filter(isRecord) : [];
  return {
    provider: row.model_provider,
    model_name: row.model_name,
    template: stored.data,
    template_format: row.template_format as TemplateFormat,
    invocation_parameters: isRecord(own) ? own : {},
    tools,
  };
};

const resolveSpec = async (deps: AppDeps, b: RunFields): Promise<RunSpec> => {
  const stored = b.prompt_version_id === undefined ? {} : await storedVersion(deps, b.prompt_version_id);
  const required = <T>(field: string, value: T | undefined): T => {
    if (value === undefined) throw invalid('invalid_body', `body.${field}: required unless prompt_version_id names a stored version`);
    return value;
  };
  return {
    provider: required('provider', b.provider ?? stored.provider),
    model_name: required('model_name', b.model_name ?? stored.model_name),
    base_url: b.base_url ?? null,
    api_key_secret: b.api_key_secret,
    api_key: b.api_key,
    template: required('template', b.template ?? stored.template),
    template_format: b.template_format ?? stored.template_format ?? 'MUSTACHE',
    variables: b.variables,
    invocation_parameters: b.invocation_parameters ?? stored.invocation_parameters ?? {},
    tools: b.tools ?? stored.tools ?? [],
  };
};

/** What the caller may do with stored keys, from the one permission table. */
export const playgroundAccess = (principal: Principal | null): { readonly mayRouteSecrets: boolean } => ({
  mayRouteSecrets: can(principal, 'playground.secrets'),
});

/**
 * Everything that can be checked before calling the provider, each problem a 4xx naming its
 * field: the parameters here, then the model port's rules (modelCall.ts): the provider, which key
 * goes where (`mayRouteSecrets` is the caller's `playground.secrets` permission), whether that base
 * URL may be called, the key.
 */
export const prepareRun = async (deps: AppDeps, b: RunFields, access: { readonly mayRouteSecrets: boolean }): Promise<Prepared> => {
  const spec = await resolveSpec(deps, b);
  const reserved = reservedParameters(spec.invocation_parameters);
  if (reserved.length > 0)
    throw invalid(
      'invalid_invocation_parameters',
      `body.invocation_parameters: ${reserved.join(', ')} are set by the playground, not as parameters`,
    );
  try {
    const endpoint = await deps.models.endpoint({
      provider: spec.provider,
      baseUrl: spec.base_url,
      apiKeySecret: spec.api_key_secret,
      apiKey: spec.api_key,
      mayRouteSecrets: access.mayRouteSecrets,
    });
    return { spec, endpoint };
  } catch (e) {
    if (e instanceof ModelRefusal) throw new HttpError(e.kind === 'forbidden' ? 403 : 422, e.code, e.message);
    throw e;
  }
};

const toolResultText = (result: unknown): string => (typeof result === 'string' ? result : JSON.stringify(result ?? null));

/**
 * The messages with every template text filled in with `variables`; a template problem names the
 * message it is in. Tool calls and tool results are sent as written (they are data, not template).
 */
export const renderMessages = (spec: RunSpec, variables: Variables): { messages: ChatMessage[] } | { problem: string } => {
  const messages = spec.template.type === 'string' ? [{ role: 'user' as const, content: spec.template.template }] : spec.template.messages;
  const out: ChatMessage[] = [];
  for (const [i, m] of messages.entries()) {
    const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const where = spec.template.type === 'string' ? 'body.template.template' : `body.template.messages.${i}`;
    const role = m.role === 'model' || m.role === 'ai' ? 'assistant' : m.role;
    if (role === 'tool') {
      const result = parts.find((p) => p.type === 'tool_result');
      if (result === undefined)
        return { problem: `${where}.content: a tool message needs a tool_result part naming the tool_call_id it answers` };
      out.push({ role, content: toolResultText(result.tool_result), toolCallId: result.tool_call_id });
      continue;
    }
    let text = '';
    for (const part of parts)
      if (part.type === 'text') {
        const rendered = renderTemplate(spec.template_format, part.text, variables);
        if ('problem' in rendered)
          return {
            problem: `${spec.template.type === 'string' ? where : `${where}.content`} (${spec.template_format}): ${rendered.problem}`,
          };
        text += rendered.text;
      }
    const toolCalls = parts.flatMap((p) =>
      p.type === 'tool_call' ? [{ id: p.tool_call_id, name: p.tool_call.name, arguments: p.tool_call.arguments }] : [],
    );
    if (toolCalls.length > 0 && role !== 'assistant') return { problem: `${where}.content: only assistant messages carry tool calls` };
    out.push(toolCalls.length > 0 ? { role, content: text, toolCalls } : { role, content: text });
  }
  return { messages: out };
};

/** The variables the run's template uses, in order of first use (tool results are not template). */
export const specVariables = (spec: RunSpec): string[] =>
  promptVersionVariables({ template: spec.template as PromptTemplate, templateFormat: spec.template_format });
