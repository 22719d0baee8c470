import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatMessage, TokenUsage } from '../../../domain/playground/playgroundSpan.ts';

/** What a provider's stream yields, in the order it arrives; the same for every provider. */
export type ProviderEvent =
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly id?: string; readonly name?: string; readonly arguments: string }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  | { readonly type: 'finish'; readonly reason: string };

export type ProviderCall = {
  /** `openai` (also every OpenAI-compatible server, through `baseUrl`) or `anthropic`. */
  readonly sdk: 'openai' | 'anthropic';
  readonly apiKey: string;
  readonly baseUrl: string | null;
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly invocationParameters: Readonly<Record<string, unknown>>;
  readonly tools: readonly unknown[];
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
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

// Retries would hide a 429 from the person at the keyboard and multiply the wait: one attempt.
const openAiStream = async function* (call: ProviderCall): AsyncGenerator<ProviderEvent> {
  const client = new OpenAI({ apiKey: call.apiKey, baseURL: call.baseUrl ?? undefined, maxRetries: 0, timeout: call.timeoutMs });
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
  const client = new Anthropic({ apiKey: call.apiKey, baseURL: call.baseUrl ?? undefined, maxRetries: 0, timeout: call.timeoutMs });
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

/**
 * A message a person can act on, naming the provider and the status; never the key, never the
 * provider's raw body beyond its own error message.
 */
export const providerErrorMessage = (providerName: string, error: unknown, timeoutMs: number, timedOut: boolean): string => {
  const seconds = Math.round(timeoutMs / 100) / 10;
  if (timedOut || error instanceof OpenAI.APIConnectionTimeoutError || error instanceof Anthropic.APIConnectionTimeoutError)
    return `${providerName} sent nothing for ${seconds} s (timeout)`;
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    const status = error.status;
    // OpenAI's body is `{error: {message}}` (the SDK unwraps it), Anthropic's `{type: 'error', error: {message}}`.
    const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
    const said = body?.message ?? body?.error?.message;
    const detail = typeof said === 'string' && said !== '' ? `: ${said}` : '';
    if (status === 401) return `${providerName} rejected the API key (401 Unauthorized)${detail}`;
    if (status === 403) return `${providerName} refused the request (403 Forbidden)${detail}`;
    if (status === 429) return `${providerName} is rate limiting this key (429 Too Many Requests)${detail}`;
    if (status !== undefined) return `${providerName} answered ${status}${detail}`;
    return `Could not reach ${providerName}: ${error.message}`;
  }
  return `${providerName} stream failed: ${error instanceof Error ? error.message : String(error)}`;
};
