import type { PlainAttributes, PlainValue } from './plainAttributes.ts';

/**
 * The GenAI names OpenLLMetry (Traceloop) and older OpenTelemetry instrumentations send that the
 * current conventions (and so `@arizeai/openinference-genai`) no longer read, as OpenInference
 * attributes: the provider in `gen_ai.system`, `gen_ai.usage.prompt_tokens` /
 * `completion_tokens` and their cache and reasoning parts, `llm.usage.total_tokens`, the indexed
 * messages `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (role, content, tool calls), the tool
 * definitions `llm.request.functions.N.*`, and `gen_ai.conversation.id` as the session.
 * `sent` holds the span's `gen_ai.*` and `llm.*` attributes as plain values.
 */
export const openLlmetryAttributes = (sent: PlainAttributes): PlainAttributes => {
  const out: PlainAttributes = {};
  const system = text(sent['gen_ai.system']);
  if (system !== undefined) {
    out['llm.system'] = system.toLowerCase();
    out['llm.provider'] = system.toLowerCase();
  }
  const prompt = count(sent['gen_ai.usage.prompt_tokens']);
  const completion = count(sent['gen_ai.usage.completion_tokens']);
  setCount(out, 'llm.token_count.prompt', prompt);
  setCount(out, 'llm.token_count.completion', completion);
  setCount(
    out,
    'llm.token_count.total',
    count(sent['gen_ai.usage.total_tokens']) ??
      count(sent['llm.usage.total_tokens']) ??
      (prompt !== undefined && completion !== undefined ? prompt + completion : undefined),
  );
  setCount(out, 'llm.token_count.prompt_details.cache_read', count(sent['gen_ai.usage.cache_read_input_tokens']));
  setCount(out, 'llm.token_count.prompt_details.cache_write', count(sent['gen_ai.usage.cache_creation_input_tokens']));
  setCount(
    out,
    'llm.token_count.completion_details.reasoning',
    count(sent['gen_ai.usage.reasoning_tokens']) ?? count(sent['gen_ai.usage.reasoning.output_tokens']),
  );
  const conversation = sent['gen_ai.conversation.id'];
  if (conversation !== undefined && !Array.isArray(conversation)) out['session.id'] = conversation as string | number | boolean;

  const inputs = indexedMessages(sent, 'gen_ai.prompt.', 'llm.input_messages', out);
  const outputs = indexedMessages(sent, 'gen_ai.completion.', 'llm.output_messages', out);
  if (inputs.length > 0) {
    out['input.value'] = JSON.stringify(inputs);
    out['input.mime_type'] = 'application/json';
  }
  if (outputs.length > 0) {
    const only = outputs.length === 1 ? outputs[0]!.content : undefined;
    out['output.value'] = typeof only === 'string' ? only : JSON.stringify(outputs);
    out['output.mime_type'] = typeof only === 'string' ? 'text/plain' : 'application/json';
  }
  toolDefinitions(sent, out);
  return out;
};

const text = (v: PlainValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const count = (v: PlainValue | undefined): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
  return undefined;
};

const setCount = (out: PlainAttributes, key: string, n: number | undefined): void => {
  if (n !== undefined) out[key] = n;
};

/** `gen_ai.prompt.3.tool_calls.0.name` → index 3, rest `tool_calls.0.name`. Six digits at most: an index is a position, not data. */
const INDEXED = /^(\d{1,6})\.(.+)$/;

type MessageSummary = { role?: string; content?: string };

/**
 * The `prefix` messages as `target.N.message.*` keys in `out`, with a `{ role, content }` summary
 * of each (for `input.value` / `output.value`), in index order.
 */
const indexedMessages = (sent: PlainAttributes, prefix: string, target: string, out: PlainAttributes): MessageSummary[] => {
  const messages = new Map<number, MessageSummary>();
  for (const key of Object.keys(sent)) {
    if (!key.startsWith(prefix)) continue;
    const m = INDEXED.exec(key.slice(prefix.length));
    if (m === null) continue;
    const index = Number(m[1]);
    const field = m[2]!;
    const value = sent[key]!;
    const at = `${target}.${index}.message.`;
    const summary = messages.get(index) ?? {};
    messages.set(index, summary);
    if (field === 'role' && typeof value === 'string') {
      out[`${at}role`] = value;
      summary.role = value;
    } else if (field === 'content') {
      const content = typeof value === 'string' ? value : JSON.stringify(value);
      out[`${at}content`] = content;
      summary.content = content;
    } else if (field === 'tool_call_id') {
      out[`${at}tool_call_id`] = String(value);
    } else if (field === 'finish_reason' && typeof value === 'string') {
      out['llm.finish_reason'] ??= value;
    } else if (field.startsWith('function_call.')) {
      toolCallField(out, `${at}tool_calls.0.tool_call.`, field.slice('function_call.'.length), value);
    } else if (field.startsWith('tool_calls.')) {
      const call = INDEXED.exec(field.slice('tool_calls.'.length));
      if (call !== null) toolCallField(out, `${at}tool_calls.${Number(call[1])}.tool_call.`, call[2]!, value);
    }
  }
  return [...messages.entries()].sort(([a], [b]) => a - b).map(([, summary]) => summary);
};

const toolCallField = (out: PlainAttributes, at: string, field: string, value: PlainValue): void => {
  if (field === 'name') out[`${at}function.name`] = String(value);
  else if (field === 'arguments') out[`${at}function.arguments`] = typeof value === 'string' ? value : JSON.stringify(value);
  else if (field === 'id') out[`${at}id`] = String(value);
};

/** `llm.request.functions.N.{name,description,parameters}` → `llm.tools.N.tool.json_schema`. */
const toolDefinitions = (sent: PlainAttributes, out: PlainAttributes): void => {
  const prefix = 'llm.request.functions.';
  const tools = new Map<number, Record<string, unknown>>();
  for (const key of Object.keys(sent)) {
    if (!key.startsWith(prefix)) continue;
    const m = INDEXED.exec(key.slice(prefix.length));
    if (m === null || !['name', 'description', 'parameters'].includes(m[2]!)) continue;
    const fn = tools.get(Number(m[1])) ?? {};
    tools.set(Number(m[1]), fn);
    fn[m[2]!] = m[2] === 'parameters' ? parsedOrSelf(sent[key]!) : sent[key];
  }
  for (const [index, fn] of tools) out[`llm.tools.${index}.tool.json_schema`] = JSON.stringify({ type: 'function', function: fn });
};

const parsedOrSelf = (v: PlainValue): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
