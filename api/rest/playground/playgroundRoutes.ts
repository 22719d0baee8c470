import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Koa from 'koa';
import { z } from 'zod';
import { playgroundProvider } from '../../../domain/playground/playgroundProvider.ts';
import { type ChatMessage, playgroundSpanBatch, type TokenUsage, type ToolCall } from '../../../domain/playground/playgroundSpan.ts';
import { renderTemplate } from '../../../domain/playground/renderTemplate.ts';
import { MESSAGE_ROLES, TEMPLATE_FORMATS, type TemplateFormat } from '../../../domain/prompts/promptVersion.ts';
import { decryptSecret } from '../../../domain/secrets/crypto.ts';
import { cleanSecretKey } from '../../../domain/secrets/secretKey.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { findPromptVersion } from '../../../projections/prompts/promptQueries.ts';
import { sealedSecretValues } from '../../../projections/secrets/secretValueQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { HttpError } from '../../http/httpError.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { describeIssues, parseBody } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { DEFAULT_PLAYGROUND_SETTINGS } from './playgroundSettings.ts';
import { providerErrorMessage, providerStream } from './providerStream.ts';

const textPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const message = z.strictObject({ role: z.enum(MESSAGE_ROLES), content: z.union([z.string(), z.array(textPart)]) });

const template = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('chat'), messages: z.array(message).min(1).max(500) }),
  z.strictObject({ type: z.literal('string'), template: z.string() }),
]);

/**
 * A run: either everything given here, or a stored prompt version (`prompt_version_id`) whose
 * provider, model, template, parameters and tools are used for every field not given here.
 */
const body = z.strictObject({
  prompt_version_id: z.string().max(256).optional(),
  provider: z.string().max(64).optional(),
  model_name: z.string().trim().min(1).max(256).optional(),
  /** An OpenAI-compatible server (Ollama, vLLM, a gateway); required for providers other than OpenAI and Anthropic. */
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullish(),
  /** The stored secret holding the key; `<PROVIDER>_API_KEY` when absent. */
  api_key_secret: z.string().max(256).optional(),
  template: template.optional(),
  template_format: z.enum(TEMPLATE_FORMATS).optional(),
  variables: z.record(z.string(), z.unknown()).default({}),
  /** Passed to the provider as they are (temperature, max_tokens, ...), in the provider's own names. */
  invocation_parameters: z.record(z.string(), z.unknown()).optional(),
  /** Tool definitions in the provider's own shape (OpenAI's `{type: "function", function}` also works for Anthropic). */
  tools: z.array(z.record(z.string(), z.unknown())).max(128).optional(),
});

/** What is run, after the stored version (if any) filled what the request left out. */
type Body = {
  readonly provider: string;
  readonly model_name: string;
  readonly base_url: string | null;
  readonly api_key_secret: string | undefined;
  readonly template: z.infer<typeof template>;
  readonly template_format: TemplateFormat;
  readonly variables: Record<string, unknown>;
  readonly invocation_parameters: Record<string, unknown>;
  readonly tools: readonly Record<string, unknown>[];
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored version's fields in the shape of the request (parameters unwrapped from `{type, <type>: {...}}`). */
const storedVersion = async (deps: AppDeps, raw: string): Promise<Partial<Body>> => {
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

const resolveBody = async (deps: AppDeps, b: z.infer<typeof body>): Promise<Body> => {
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
    template: required('template', b.template ?? stored.template),
    template_format: b.template_format ?? stored.template_format ?? 'MUSTACHE',
    variables: b.variables,
    invocation_parameters: b.invocation_parameters ?? stored.invocation_parameters ?? {},
    tools: b.tools ?? stored.tools ?? [],
  };
};

/** Fields the route itself sets: a client value for them would silently lose or break the stream. */
const RESERVED_PARAMETERS = ['model', 'messages', 'stream', 'stream_options', 'tools', 'system'];

const invalid = (code: string, detail: string): HttpError => new HttpError(422, code, detail);

/** The messages with every template text filled in; a template problem names the message it is in. */
const renderMessages = (b: Body): ChatMessage[] => {
  const messages = b.template.type === 'string' ? [{ role: 'user' as const, content: b.template.template }] : b.template.messages;
  return messages.map((m, i) => {
    if (m.role === 'tool')
      throw invalid('unsupported_message', `body.template.messages.${i}: tool messages are not supported by the playground yet`);
    const text = typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('');
    const rendered = renderTemplate(b.template_format, text, b.variables);
    const where = b.template.type === 'string' ? 'body.template.template' : `body.template.messages.${i}.content`;
    if ('problem' in rendered) throw invalid('invalid_template', `${where} (${b.template_format}): ${rendered.problem}`);
    const role = m.role === 'model' || m.role === 'ai' ? 'assistant' : m.role;
    return { role, content: rendered.text };
  });
};

/** The key: the stored secret first (decrypted here, on the server only), then the server's environment. */
const resolveApiKey = async (deps: AppDeps, keyName: string, providerName: string): Promise<string> => {
  const sealed = (await sealedSecretValues(deps.pool, [keyName])).get(keyName);
  if (sealed !== undefined) return decryptSecret(deps.identity.keyring, sealed, keyName);
  const fromEnvironment = (deps.playground ?? DEFAULT_PLAYGROUND_SETTINGS).environmentKeys[keyName];
  if (fromEnvironment !== undefined && fromEnvironment !== '') return fromEnvironment;
  throw invalid(
    'missing_secret',
    `No API key for ${providerName}: store a secret named ${keyName} (PUT /v1/secrets) or set ${keyName} in the server's environment`,
  );
};

const sse = (out: PassThrough, event: Record<string, unknown>): void => {
  if (!out.writableEnded) out.write(`data: ${JSON.stringify(event)}\n\n`);
};

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const nowNano = (): bigint => BigInt(Date.now()) * 1_000_000n;

export const playgroundRoutes = (deps: AppDeps): RouteDef[] => [
  {
    /**
     * Runs a chat (or string) template against a provider and streams the answer as Server-Sent
     * Events: `delta` (text), `tool_call_delta`, then `done` (usage, finish reason, the trace) or
     * `error` (the provider's refusal, named). Everything that can be checked before calling the
     * provider is a 422 JSON answer instead, so a stream is only opened for a call that is made.
     * A POST like any other write: viewers may not spend the team's provider keys.
     */
    method: 'POST',
    path: '/v1/playground/chat',
    permission: 'write',
    handler: async (ctx) => {
      const b = await resolveBody(deps, parseBody(ctx, body));
      const provider = playgroundProvider(b.provider);
      if ('problem' in provider) throw invalid('unknown_provider', `body.provider: ${provider.problem}`);
      const baseUrl = b.base_url;
      if (provider.needsBaseUrl && baseUrl === null)
        throw invalid(
          'missing_base_url',
          `body.base_url: ${provider.name} is called as an OpenAI-compatible server and needs its base URL`,
        );
      const reserved = RESERVED_PARAMETERS.filter((p) => Object.hasOwn(b.invocation_parameters, p));
      if (reserved.length > 0)
        throw invalid(
          'invalid_invocation_parameters',
          `body.invocation_parameters: ${reserved.join(', ')} are set by the playground, not as parameters`,
        );
      const messages = renderMessages(b);
      let keyName: string;
      try {
        keyName = cleanSecretKey(b.api_key_secret ?? provider.defaultKeyName);
      } catch (e) {
        throw invalid('invalid_secret_key', `body.api_key_secret: ${e instanceof Error ? e.message : String(e)}`);
      }
      const apiKey = await resolveApiKey(deps, keyName, provider.name);

      const out = new PassThrough();
      ctx.status = 200;
      ctx.type = 'text/event-stream';
      ctx.set('Cache-Control', 'no-cache, no-transform');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.body = out;
      // Not awaited: Koa sends the headers once the handler returns, and the events follow as they come.
      run(deps, ctx, out, { b, provider, baseUrl, messages, apiKey }).catch((e: unknown) => {
        deps.logger.error({ err: e, requestId: ctx.state.requestId }, 'playground run failed');
        out.end();
      });
    },
  },
];

type Prepared = {
  readonly b: Body;
  readonly provider: { readonly name: string; readonly sdk: 'openai' | 'anthropic'; readonly otelName: string };
  readonly baseUrl: string | null;
  readonly messages: ChatMessage[];
  readonly apiKey: string;
};

/** The call itself, after the response has started: every outcome is an event, then the run is recorded. */
const run = async (deps: AppDeps, ctx: Koa.Context, out: PassThrough, p: Prepared): Promise<void> => {
  const timeoutMs = (deps.playground ?? DEFAULT_PLAYGROUND_SETTINGS).timeoutSeconds * 1000;
  const abort = new AbortController();
  let timedOut = false;
  // An idle timeout, not a deadline: a long answer that keeps streaming is not cut off.
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  // A closed browser tab stops the provider call too (and stops the spending).
  ctx.res.on('close', () => abort.abort());
  const startUnixNano = nowNano();
  let text = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: TokenUsage | null = null;
  let finishReason: string | null = null;
  let error: string | null = null;
  try {
    for await (const event of providerStream({
      sdk: p.provider.sdk,
      apiKey: p.apiKey,
      baseUrl: p.baseUrl,
      model: p.b.model_name,
      messages: p.messages,
      invocationParameters: p.b.invocation_parameters,
      tools: p.b.tools,
      timeoutMs,
      signal: abort.signal,
    })) {
      timer.refresh();
      if (event.type === 'delta') {
        text += event.text;
        sse(out, { type: 'delta', text: event.text });
      } else if (event.type === 'tool_call_delta') {
        const call = calls.get(event.index) ?? { id: '', name: '', arguments: '' };
        if (event.id) call.id = event.id;
        if (event.name) call.name += event.name;
        call.arguments += event.arguments;
        calls.set(event.index, call);
        sse(out, {
          type: 'tool_call_delta',
          index: event.index,
          id: event.id ?? null,
          name: event.name ?? null,
          arguments: event.arguments,
        });
      } else if (event.type === 'usage') usage = event.usage;
      else finishReason = event.reason;
    }
    // The SDKs end a stream quietly when it is aborted: a cut-off answer must not look complete.
    if (abort.signal.aborted) throw new Error('aborted');
  } catch (e) {
    const said =
      abort.signal.aborted && !timedOut
        ? 'the client closed the connection'
        : providerErrorMessage(p.provider.name, e, timeoutMs, timedOut);
    // A provider may echo what it was sent: the key never leaves the server, not even inside its message.
    error = p.apiKey.length >= 4 ? said.replaceAll(p.apiKey, '[redacted]') : said;
  } finally {
    clearTimeout(timer);
  }
  const toolCalls: ToolCall[] = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  const traceId = hex(16);
  const spanId = hex(8);
  try {
    await ingestSpans(
      deps.store,
      [
        playgroundSpanBatch({
          traceId,
          spanId,
          startUnixNano,
          endUnixNano: nowNano(),
          provider: p.provider.otelName,
          modelName: p.b.model_name,
          messages: p.messages,
          invocationParameters: p.b.invocation_parameters,
          tools: p.b.tools,
          variables: p.b.variables,
          output: { text, toolCalls },
          usage,
          error,
        }),
      ],
      commandContextOf(ctx),
    );
  } catch (e) {
    deps.logger.error({ err: e, requestId: ctx.state.requestId }, 'playground run could not be recorded');
    sse(out, { type: 'error', code: 'not_recorded', message: 'The run finished but could not be recorded as a trace' });
    out.end();
    return;
  }
  const trace = { trace_id: traceId, span_id: spanId };
  if (error !== null) sse(out, { type: 'error', code: 'provider_error', message: error, ...trace });
  else
    sse(out, {
      type: 'done',
      finish_reason: finishReason,
      tool_calls: toolCalls,
      usage: usage === null ? null : { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.total },
      ...trace,
    });
  out.end();
};
