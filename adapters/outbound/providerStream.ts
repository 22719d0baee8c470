import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatMessage, ModelDelta } from '../../domain/modelCalls/modelCall.ts';
import { providerFetch } from './providerFetch.ts';

/** What a provider's stream yields (the port's deltas). */
export type ProviderEvent = ModelDelta;

export type ProviderCall = {
  /** `openai` (also every OpenAI-compatible server, through `baseUrl`) or `anthropic`. */
  readonly sdk: 'openai' | 'anthropic';
  /** The key this call carries (providerFetch.ts sets it), or null for none. */
  readonly apiKey: string | null;
  /** Where the call goes: chosen and checked before (modelClient.ts: the credential and outbound URL rules), never the SDK's own default. */
  readonly baseUrl: string;
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly invocationParameters: Readonly<Record<string, unknown>>;
  readonly tools: readonly unknown[];
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Where the SDK's own complaints go (they quote what the destination sent): the debug log. */
  readonly debug: (message: string) => void;
};

/** OpenAI's shape: an assistant turn's tool calls beside its text, a tool turn naming the call it answers. */
const openAiMessage = (m: ChatMessage): OpenAI.Chat.ChatCompletionMessageParam => {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
  if (m.role === 'assistant' && m.toolCalls !== undefined && m.toolCalls.length > 0)
    return {
      role: 'assistant',
      content: m.content === '' ? null : m.content,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  return { role: m.role, content: m.content } as OpenAI.Chat.ChatCompletionMessageParam;
};

const sdkLogger = (debug: (message: string) => void) => {
  const say = (...args: unknown[]) => debug(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  return { error: say, warn: say, info: say, debug: say };
};

/** The SDKs insist on a key; the real one (or none) is set by providerFetch, which replaces this. */
const UNUSED_KEY = 'set-by-providerFetch';

// Retries would hide a 429 from the person at the keyboard and multiply the wait: one attempt.
const openAiStream = async function* (call: ProviderCall): AsyncGenerator<ProviderEvent> {
  const client = new OpenAI({
    // Every option the SDK would otherwise read from the server's environment is given here.
    apiKey: UNUSED_KEY,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL: call.baseUrl,
    fetch: providerFetch('openai', call.apiKey),
    maxRetries: 0,
    timeout: call.timeoutMs,
    logger: sdkLogger(call.debug),
  });
  const stream = await client.chat.completions.create(
    {
      ...call.invocationParameters,
      model: call.model,
      messages: call.messages.map(openAiMessage),
      ...(call.tools.length > 0 ? { tools: call.tools as OpenAI.Chat.ChatCompletionTool[] } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal: call.signal },
  );
  for await (const chunk of stream) {
    for (const choice of chunk.choices ?? []) {
      if (choice.delta?.content) yield { type: 'delta', text: choice.delta.content };
      for (const t of choice.delta?.tool_calls ?? [])
        yield { type: 'tool_call_delta', index: t.index, id: t.id, name: t.function?.name, arguments: t.function?.arguments ?? '' };
      if (choice.finish_reason) yield { type: 'finish', reason: choice.finish_reason };
    }
    if (chunk.usage)
      yield {
        type: 'usage',
        usage: { prompt: chunk.usage.prompt_tokens, completion: chunk.usage.completion_tokens, total: chunk.usage.total_tokens },
      };
  }
};

/** Prompts store tools in OpenAI's shape; Anthropic names the schema `input_schema`. Its own shape passes as is. */
const anthropicTool = (tool: unknown): Anthropic.Tool => {
  const fn = (tool as { function?: { name: string; description?: string; parameters?: Anthropic.Tool.InputSchema } }).function;
  if (fn === undefined) return tool as Anthropic.Tool;
  return { name: fn.name, ...(fn.description ? { description: fn.description } : {}), input_schema: fn.parameters ?? { type: 'object' } };
};

const anthropicStream = async function* (call: ProviderCall): AsyncGenerator<ProviderEvent> {
  const client = new Anthropic({
    apiKey: UNUSED_KEY,
    authToken: null,
    baseURL: call.baseUrl,
    fetch: providerFetch('anthropic', call.apiKey) as unknown as NonNullable<ConstructorParameters<typeof Anthropic>[0]>['fetch'],
    maxRetries: 0,
    timeout: call.timeoutMs,
  });
  // Anthropic takes the system prompt apart from the turns.
  const system = call.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content);
  const turns = call.messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const stream = await client.messages.create(
    {
      max_tokens: 1024,
      ...call.invocationParameters,
      model: call.model,
      ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
      messages: anthropicTurns(turns),
      ...(call.tools.length > 0 ? { tools: call.tools.map(anthropicTool) } : {}),
      stream: true,
    } as Anthropic.MessageCreateParamsStreaming,
    { signal: call.signal },
  );
  let prompt = 0;
  let completion = 0;
  for await (const event of stream) {
    if (event.type === 'message_start') prompt = event.message.usage.input_tokens;
    else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use')
      yield { type: 'tool_call_delta', index: event.index, id: event.content_block.id, name: event.content_block.name, arguments: '' };
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') yield { type: 'delta', text: event.delta.text };
    else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
      yield { type: 'tool_call_delta', index: event.index, arguments: event.delta.partial_json };
    else if (event.type === 'message_delta') {
      completion = event.usage.output_tokens;
      if (event.delta.stop_reason) yield { type: 'finish', reason: event.delta.stop_reason };
    }
  }
  yield { type: 'usage', usage: { prompt, completion, total: prompt + completion } };
};

const parsedArguments = (raw: string): unknown => {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { arguments: raw };
  }
};

/**
 * Anthropic's shape: tool calls are `tool_use` blocks of the assistant turn, and tool results
 * `tool_result` blocks of a user turn (consecutive ones joined, as the API wants turns to alternate).
 */
const anthropicTurns = (messages: readonly ChatMessage[]): Anthropic.MessageParam[] => {
  const turns: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      const block: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: m.toolCallId ?? '', content: m.content };
      const last = turns.at(-1);
      if (last !== undefined && last.role === 'user' && Array.isArray(last.content)) last.content.push(block);
      else turns.push({ role: 'user', content: [block] });
    } else if (m.role === 'assistant' && m.toolCalls !== undefined && m.toolCalls.length > 0)
      turns.push({
        role: 'assistant',
        content: [
          ...(m.content === '' ? [] : [{ type: 'text' as const, text: m.content }]),
          ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: parsedArguments(c.arguments) })),
        ],
      });
    else turns.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content });
  }
  return turns;
};

/** Streams one chat completion through the provider's official SDK. */
export const providerStream = (call: ProviderCall): AsyncGenerator<ProviderEvent> =>
  call.sdk === 'anthropic' ? anthropicStream(call) : openAiStream(call);

/** How a failed call is reported: `message` to the person and the span, `upstream` to the debug log only. */
export type ProviderFailure = { readonly message: string; readonly upstream: string | null };

/**
 * A message a person can act on: the provider's name and the status it answered, never what it
 * answered. The destination may be a server on the playground's network, and its body (or a piece
 * of it inside a parse error) would be that server's data, shown to whoever ran the call and stored
 * in the playground project's spans. `upstream` is that body's message, for the debug log.
 * `keySent` says whether the call carried a key (a 401 without one is worth saying so).
 */
export const providerFailure = (
  providerName: string,
  error: unknown,
  options: { readonly timeoutMs: number; readonly timedOut: boolean; readonly keySent: boolean },
): ProviderFailure => {
  const seconds = Math.round(options.timeoutMs / 100) / 10;
  const upstream = error instanceof Error ? error.message : String(error);
  if (options.timedOut || error instanceof OpenAI.APIConnectionTimeoutError || error instanceof Anthropic.APIConnectionTimeoutError)
    return { message: `${providerName} sent nothing for ${seconds} s (timeout)`, upstream: null };
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    const status = error.status;
    const said = (text: string) => ({ message: `${providerName} ${text}`, upstream });
    if (status === undefined || status === null) {
      const code = (error.cause as { code?: unknown } | undefined)?.code;
      return said(`could not be reached${typeof code === 'string' && /^E[A-Z]+$/.test(code) ? ` (${code})` : ''}`);
    }
    if (status >= 300 && status < 400) return said(`answered ${status} (a redirect, which the playground does not follow)`);
    if (status === 401)
      return said(
        options.keySent
          ? 'rejected the API key (401 Unauthorized)'
          : 'wants an API key (401 Unauthorized): none was sent (a stored key goes only to the base URL an admin configured for it; send your own in api_key)',
      );
    if (status === 403) return said('refused the request (403 Forbidden)');
    if (status === 404) return said('answered 404 Not Found (check the model name and the base URL)');
    if (status === 429) return said('is rate limiting this key (429 Too Many Requests)');
    if (status >= 500) return said(`failed (${status})`);
    return said(`refused the request (${status})`);
  }
  return { message: `${providerName} sent an answer the playground could not read`, upstream };
};
