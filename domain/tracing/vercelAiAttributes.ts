import type { PlainAttributes, PlainValue } from './plainAttributes.ts';

/**
 * The span kinds of the Vercel AI SDK's operations (`ai.operationId`), as Phoenix's own Vercel
 * converter files them: the outer call is the agent, the provider call inside it the LLM, so a
 * trace counts each call's tokens once.
 */
const KINDS: ReadonlyMap<string, string> = new Map([
  ['ai.generateText', 'AGENT'],
  ['ai.generateText.doGenerate', 'LLM'],
  ['ai.generateObject', 'AGENT'],
  ['ai.generateObject.doGenerate', 'LLM'],
  ['ai.streamText', 'AGENT'],
  ['ai.streamText.doStream', 'LLM'],
  ['ai.streamObject', 'AGENT'],
  ['ai.streamObject.doStream', 'LLM'],
  ['ai.embed', 'CHAIN'],
  ['ai.embed.doEmbed', 'EMBEDDING'],
  ['ai.embedMany', 'CHAIN'],
  ['ai.embedMany.doEmbed', 'EMBEDDING'],
  ['ai.toolCall', 'TOOL'],
]);

/**
 * The Vercel AI SDK's own `ai.*` attributes (its telemetry before, and beside, the GenAI
 * conventions) as OpenInference attributes: kind from `ai.operationId`, model and provider
 * (`ai.model.id`, `ai.model.provider` such as "openai.chat" → "openai"), tokens (`ai.usage.*`,
 * v4 and v5 names), messages (`ai.prompt.messages`, `ai.response.text`, `ai.response.toolCalls`),
 * tools (`ai.prompt.tools`), tool calls (`ai.toolCall.*`), settings and telemetry metadata.
 * `sent` holds the span's `ai.*` attributes as plain values; unreadable JSON yields nothing.
 */
export const vercelAiAttributes = (sent: PlainAttributes): PlainAttributes => {
  const out: PlainAttributes = {};
  const operation = text(sent['ai.operationId']);
  const kind = operation === undefined ? undefined : KINDS.get(operation);
  if (kind !== undefined) out['openinference.span.kind'] = kind;

  const model = text(sent['ai.response.model']) ?? text(sent['ai.model.id']);
  if (model !== undefined) out['llm.model_name'] = model;
  const provider = text(sent['ai.model.provider'])?.split('.')[0]?.toLowerCase();
  if (provider) {
    out['llm.provider'] = provider;
    out['llm.system'] = provider;
  }

  const prompt = count(sent['ai.usage.inputTokens']) ?? count(sent['ai.usage.promptTokens']);
  const completion = count(sent['ai.usage.outputTokens']) ?? count(sent['ai.usage.completionTokens']);
  if (prompt !== undefined) out['llm.token_count.prompt'] = prompt;
  if (completion !== undefined) out['llm.token_count.completion'] = completion;
  const total = count(sent['ai.usage.totalTokens']) ?? (prompt !== undefined && completion !== undefined ? prompt + completion : undefined);
  if (total !== undefined) out['llm.token_count.total'] = total;
  const reasoning = count(sent['ai.usage.reasoningTokens']);
  if (reasoning !== undefined) out['llm.token_count.completion_details.reasoning'] = reasoning;
  const cached = count(sent['ai.usage.cachedInputTokens']);
  if (cached !== undefined) out['llm.token_count.prompt_details.cache_read'] = cached;

  const input = text(sent['ai.prompt']) ?? text(sent['ai.prompt.messages']);
  if (input !== undefined) {
    out['input.value'] = input;
    out['input.mime_type'] = 'application/json';
  }
  inputMessages(parsed(sent['ai.prompt.messages']), out);
  const tools = sent['ai.prompt.tools'];
  if (Array.isArray(tools)) tools.forEach((t, i) => typeof t === 'string' && (out[`llm.tools.${i}.tool.json_schema`] = t));

  const responseText = text(sent['ai.response.text']);
  const responseObject = text(sent['ai.response.object']);
  if (responseText !== undefined || responseObject !== undefined) {
    out['output.value'] = responseText ?? responseObject!;
    out['output.mime_type'] = responseText !== undefined ? 'text/plain' : 'application/json';
  }
  const toolCalls = parsed(sent['ai.response.toolCalls']);
  if (responseText !== undefined || Array.isArray(toolCalls)) {
    out['llm.output_messages.0.message.role'] = 'assistant';
    if (responseText !== undefined) out['llm.output_messages.0.message.content'] = responseText;
    if (Array.isArray(toolCalls)) toolCallsOf(toolCalls, 'llm.output_messages.0.message.', out);
  }

  const toolName = text(sent['ai.toolCall.name']);
  if (toolName !== undefined) out['tool.name'] = toolName;
  const callId = text(sent['ai.toolCall.id']);
  if (callId !== undefined) out['tool_call.id'] = callId;
  const args = text(sent['ai.toolCall.args']) ?? text(sent['ai.toolCall.input']);
  if (args !== undefined) {
    out['tool.parameters'] = args;
    out['input.value'] ??= args;
    out['input.mime_type'] ??= 'application/json';
  }
  const result = text(sent['ai.toolCall.result']) ?? text(sent['ai.toolCall.output']);
  if (result !== undefined) {
    out['output.value'] ??= result;
    out['output.mime_type'] ??= 'application/json';
  }

  const settings: Record<string, PlainValue> = {};
  const metadata: Record<string, PlainValue> = {};
  for (const key of Object.keys(sent)) {
    if (key.startsWith('ai.settings.')) settings[key.slice('ai.settings.'.length)] = sent[key]!;
    else if (key.startsWith('ai.telemetry.metadata.')) metadata[key.slice('ai.telemetry.metadata.'.length)] = sent[key]!;
  }
  if (Object.keys(settings).length > 0) out['llm.invocation_parameters'] = JSON.stringify(settings);
  if (Object.keys(metadata).length > 0) out.metadata = JSON.stringify(metadata);
  return out;
};

const text = (v: PlainValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const count = (v: PlainValue | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : undefined);

const parsed = (v: PlainValue | undefined): unknown => {
  if (typeof v !== 'string') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));

/**
 * `ai.prompt.messages`: `[{ role, content }]` where content is a string or a list of parts
 * (`text`, `tool-call`, `tool-result`, others kept as their JSON).
 */
const inputMessages = (messages: unknown, out: PlainAttributes): void => {
  if (!Array.isArray(messages)) return;
  messages.forEach((m, i) => {
    if (!isRecord(m) || typeof m.role !== 'string') return;
    const at = `llm.input_messages.${i}.message.`;
    out[`${at}role`] = m.role;
    if (typeof m.content === 'string') {
      out[`${at}content`] = m.content;
      return;
    }
    if (!Array.isArray(m.content)) return;
    const calls: unknown[] = [];
    let part = 0;
    for (const p of m.content) {
      if (!isRecord(p)) continue;
      if (p.type === 'tool-call') calls.push(p);
      else if (p.type === 'tool-result') {
        if (typeof p.toolCallId === 'string') out[`${at}tool_call_id`] = p.toolCallId;
        out[`${at}content`] = asText(p.output ?? p.result);
      } else {
        out[`${at}contents.${part}.message_content.type`] = typeof p.type === 'string' ? p.type : 'text';
        out[`${at}contents.${part}.message_content.text`] = p.type === 'text' ? asText(p.text) : asText(p);
        part++;
      }
    }
    toolCallsOf(calls, at, out);
  });
};

/** Tool calls (`{ toolCallId, toolName, args | input }`) under `at` + `tool_calls.N.tool_call.*`. */
const toolCallsOf = (calls: readonly unknown[], at: string, out: PlainAttributes): void => {
  calls.forEach((c, i) => {
    if (!isRecord(c)) return;
    const call = `${at}tool_calls.${i}.tool_call.`;
    if (typeof c.toolCallId === 'string') out[`${call}id`] = c.toolCallId;
    if (typeof c.toolName === 'string') out[`${call}function.name`] = c.toolName;
    const args = c.args ?? c.input;
    if (args !== undefined) out[`${call}function.arguments`] = asText(args);
  });
};
