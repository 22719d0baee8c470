/**
 * Reads the OpenInference conventions out of a span's nested attributes: LLM messages, tool
 * calls, retrieved documents. Every value is untrusted and may have any shape, so each reader
 * checks types and drops what does not fit rather than throwing.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const at = (root: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (isObj(node) ? node[key] : undefined), root);

export type ToolCall = { readonly id: string | null; readonly name: string; readonly arguments: string };
export type MessagePart = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'image'; readonly url: string };
export type ChatMessage = {
  readonly role: string;
  readonly name: string | null;
  readonly parts: readonly MessagePart[];
  readonly toolCalls: readonly ToolCall[];
  readonly toolCallId: string | null;
};
export type RetrievedDocument = {
  readonly id: string | null;
  readonly content: string;
  readonly score: number | null;
  readonly metadata: unknown;
};

const toolCallOf = (raw: unknown): ToolCall | null => {
  const call = obj(obj(raw).tool_call ?? raw);
  const fn = obj(call.function);
  const name = str(fn.name);
  if (name === null) return null;
  const args = fn.arguments;
  return { id: str(call.id), name, arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args, null, 2) };
};

const messageOf = (raw: unknown): ChatMessage | null => {
  const m = obj(obj(raw).message ?? raw);
  const role = str(m.role);
  const parts: MessagePart[] = [];
  const content = m.content;
  if (typeof content === 'string' && content !== '') parts.push({ kind: 'text', text: content });
  else if (content !== undefined && content !== null && typeof content !== 'string')
    parts.push({ kind: 'text', text: JSON.stringify(content, null, 2) });
  for (const item of arr(m.contents)) {
    const c = obj(obj(item).message_content ?? item);
    const text = str(c.text);
    const url = str(at(c, 'image.image.url')) ?? str(at(c, 'image.url'));
    if (c.type === 'image' && url !== null) parts.push({ kind: 'image', url });
    else if (text !== null) parts.push({ kind: 'text', text });
  }
  const toolCalls = arr(m.tool_calls)
    .map(toolCallOf)
    .filter((c): c is ToolCall => c !== null);
  if (role === null && parts.length === 0 && toolCalls.length === 0) return null;
  return { role: role ?? 'unknown', name: str(m.name), parts, toolCalls, toolCallId: str(m.tool_call_id) };
};

const messagesAt = (attributes: Obj, path: string): ChatMessage[] =>
  arr(at(attributes, path))
    .map(messageOf)
    .filter((m): m is ChatMessage => m !== null);

export const inputMessages = (attributes: Obj): ChatMessage[] => messagesAt(attributes, 'llm.input_messages');
export const outputMessages = (attributes: Obj): ChatMessage[] => messagesAt(attributes, 'llm.output_messages');

const documentsAt = (attributes: Obj, path: string): RetrievedDocument[] =>
  arr(at(attributes, path)).flatMap((raw) => {
    const d = obj(obj(raw).document ?? raw);
    const content = str(d.content);
    if (content === null && d.id === undefined) return [];
    const score = typeof d.score === 'number' ? d.score : null;
    return [{ id: str(d.id), content: content ?? '', score, metadata: d.metadata ?? null }];
  });

export const retrievedDocuments = (attributes: Obj): RetrievedDocument[] => documentsAt(attributes, 'retrieval.documents');
export const rerankerInputDocuments = (attributes: Obj): RetrievedDocument[] => documentsAt(attributes, 'reranker.input_documents');
export const rerankerOutputDocuments = (attributes: Obj): RetrievedDocument[] => documentsAt(attributes, 'reranker.output_documents');

/** A TOOL span's own call: its name, description and JSON-schema parameters. */
export const toolOf = (attributes: Obj): { name: string; description: string | null; parameters: string | null } | null => {
  const tool = obj(attributes.tool);
  const name = str(tool.name);
  if (name === null) return null;
  const parameters = tool.parameters;
  return {
    name,
    description: str(tool.description),
    parameters: typeof parameters === 'string' ? parameters : parameters === undefined ? null : JSON.stringify(parameters, null, 2),
  };
};

/** The LLM call's model, provider and invocation parameters, for the header of the LLM view. */
export const llmInfo = (attributes: Obj): { model: string | null; provider: string | null; invocationParameters: string | null } => {
  const llm = obj(attributes.llm);
  const params = llm.invocation_parameters;
  return {
    model: str(llm.model_name),
    provider: str(llm.provider) ?? str(llm.system),
    invocationParameters: typeof params === 'string' ? params : params === undefined ? null : JSON.stringify(params),
  };
};

/** Invocation parameters as name/value pairs (temperature, max_tokens, ...), values as text. */
export const invocationParameters = (attributes: Obj): { name: string; value: string }[] => {
  let params: unknown = obj(attributes.llm).invocation_parameters;
  if (typeof params === 'string') {
    try {
      params = JSON.parse(params);
    } catch {
      return params === '' ? [] : [{ name: 'parameters', value: params as string }];
    }
  }
  return Object.entries(obj(params)).map(([name, value]) => ({
    name,
    value: str(value) ?? (value === null ? 'null' : JSON.stringify(value)),
  }));
};

export type TokenSplit = {
  readonly prompt: number | null;
  readonly completion: number | null;
  readonly total: number | null;
  /** Prompt tokens read from the provider's cache. */
  readonly cacheRead: number | null;
  /** Prompt tokens written to the provider's cache. */
  readonly cacheWrite: number | null;
  /** Completion tokens spent reasoning. */
  readonly reasoning: number | null;
};

const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;

/** The LLM call's tokens as OpenInference splits them (`llm.token_count.*`). */
export const tokenSplit = (attributes: Obj): TokenSplit => {
  const tokens = obj(obj(attributes.llm).token_count);
  return {
    prompt: count(tokens.prompt),
    completion: count(tokens.completion),
    total: count(tokens.total),
    cacheRead: count(at(tokens, 'prompt_details.cache_read')),
    cacheWrite: count(at(tokens, 'prompt_details.cache_write')),
    reasoning: count(at(tokens, 'completion_details.reasoning')),
  };
};
