import { fromWireMessages, toWireMessages, type WireMessage } from '../prompts/messageParts.ts';
import type { TemplateFormat } from './templateVariables.ts';

export type { WireMessage };

export type DraftRole = 'system' | 'user' | 'assistant' | 'tool';
export const DRAFT_ROLES: readonly DraftRole[] = ['system', 'user', 'assistant', 'tool'];
/**
 * One message as typed. An assistant message may carry the tool calls it made (a JSON array of
 * `{id, name, arguments}`), and a tool message answers one of them: `toolCallId` names it and
 * `content` is the tool's result.
 */
export type DraftMessage = { role: DraftRole; content: string; toolCallId?: string; toolCalls?: string };

/** One column of the playground: a prompt and the model settings it runs with, as typed. */
export type PlaygroundDraft = {
  messages: DraftMessage[];
  templateFormat: TemplateFormat;
  provider: string;
  modelName: string;
  /** Empty for OpenAI and Anthropic themselves; an OpenAI-compatible server's `/v1` URL otherwise. */
  baseUrl: string;
  /** Text fields: empty leaves the provider's default. */
  temperature: string;
  maxTokens: string;
  /** Any other invocation parameters, as a JSON object. */
  otherParameters: string;
  /** Tool definitions as a JSON array (OpenAI's shape), or empty. */
  tools: string;
  /** Where the draft came from, when it was opened from a stored prompt version: saving defaults to that prompt. */
  openedFrom?: { readonly prompt: string; readonly version: number };
};

/** The providers the server's playground calls (others are reached as OpenAI-compatible with a base URL). */
export const PLAYGROUND_PROVIDERS = [
  'OPENAI',
  'ANTHROPIC',
  'OLLAMA',
  'DEEPSEEK',
  'GROQ',
  'XAI',
  'TOGETHER',
  'FIREWORKS',
  'PERPLEXITY',
  'CEREBRAS',
  'MOONSHOT',
];

export const emptyDraft = (): PlaygroundDraft => ({
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: '{{question}}' },
  ],
  templateFormat: 'MUSTACHE',
  provider: 'OPENAI',
  modelName: 'gpt-4o-mini',
  baseUrl: '',
  temperature: '',
  maxTokens: '',
  otherParameters: '{}',
  tools: '',
});

/** Set by the route, never as parameters (the server refuses them there). */
const SET_BY_PLAYGROUND = new Set(['model', 'messages', 'stream', 'stream_options', 'tools', 'system']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The texts templates apply to: tool results are data, not template. */
export const templateTexts = (d: PlaygroundDraft): string[] => d.messages.filter((m) => m.role !== 'tool').map((m) => m.content);

/** The draft's messages as a prompt's chat template holds them, or the message that is wrong. */
export const wireMessages = (messages: readonly DraftMessage[]): { messages: WireMessage[] } | { problem: string } =>
  toWireMessages(messages);

/** Stored or traced messages back into the editor, in the roles the playground offers. */
export const draftMessages = (messages: readonly { role: string; content: string | readonly Obj[] }[]): DraftMessage[] =>
  fromWireMessages(messages).flatMap((m): DraftMessage[] => {
    const role = m.role === 'developer' ? 'system' : m.role === 'model' || m.role === 'ai' ? 'assistant' : m.role;
    return role === 'system' || role === 'user' || role === 'assistant' || role === 'tool' ? [{ ...m, role }] : [];
  });

/** What the run and the saved version send: messages, parameters and tools parsed, or the field that is wrong. */
export const draftRequest = (
  d: PlaygroundDraft,
): { ok: true; messages: WireMessage[]; parameters: Obj; tools: Obj[] } | { ok: false; problem: string } => {
  const wire = wireMessages(d.messages);
  if ('problem' in wire) return { ok: false, problem: wire.problem };
  let other: unknown = {};
  try {
    other = d.otherParameters.trim() === '' ? {} : JSON.parse(d.otherParameters);
  } catch {
    return { ok: false, problem: 'Other parameters: not valid JSON' };
  }
  if (!isObj(other)) return { ok: false, problem: 'Other parameters: must be a JSON object, e.g. {"top_p": 0.9}' };
  const parameters: Obj = { ...other };
  for (const [field, label, value] of [
    ['temperature', 'Temperature', d.temperature],
    ['max_tokens', 'Max tokens', d.maxTokens],
  ] as const) {
    if (value.trim() === '') continue;
    const n = Number(value);
    if (!Number.isFinite(n)) return { ok: false, problem: `${label}: not a number` };
    parameters[field] = n;
  }
  let tools: unknown = [];
  try {
    tools = d.tools.trim() === '' ? [] : JSON.parse(d.tools);
  } catch {
    return { ok: false, problem: 'Tools: not valid JSON' };
  }
  if (!Array.isArray(tools) || !tools.every(isObj)) return { ok: false, problem: 'Tools: must be a JSON array of tool definitions' };
  return { ok: true, messages: wire.messages, parameters, tools };
};

const STORAGE_KEY = 'loupe.playground.draft';

/** Hands a draft to the playground page across navigation (this tab only, read once). */
export const stashDraft = (draft: PlaygroundDraft): void => {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(draft));
};

export const takeDraft = (): PlaygroundDraft | null => {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  sessionStorage.removeItem(STORAGE_KEY);
  if (raw === null) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObj(parsed) ? { ...emptyDraft(), ...(parsed as Partial<PlaygroundDraft>) } : null;
  } catch {
    return null;
  }
};

const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/**
 * A playground draft from an LLM span's OpenInference attributes: its input messages (as written,
 * so the template format is NONE: the span's text is sent verbatim), model, provider and
 * invocation parameters; tool messages and an assistant's tool calls too. Images have no place in the editor yet and are left out.
 */
export const draftFromSpan = (
  attributes: Obj,
  messages: readonly {
    role: string;
    parts: readonly { kind: string; text?: string }[];
    toolCalls?: readonly { id: string | null; name: string; arguments: string }[];
    toolCallId?: string | null;
  }[],
): PlaygroundDraft => {
  const llm = isObj(attributes.llm) ? attributes.llm : {};
  let params: unknown = llm.invocation_parameters;
  if (typeof params === 'string') {
    try {
      params = JSON.parse(params);
    } catch {
      params = {};
    }
  }
  const all = isObj(params) ? params : {};
  const other = Object.fromEntries(
    Object.entries(all).filter(([k]) => !SET_BY_PLAYGROUND.has(k) && k !== 'temperature' && k !== 'max_tokens'),
  );
  const provider = (text(llm.provider) ?? text(llm.system) ?? 'openai').toUpperCase();
  const tools = Array.isArray(llm.tools)
    ? llm.tools
        .map((t) => (isObj(t) && isObj(t.tool) ? t.tool.json_schema : undefined))
        .map((s) => {
          try {
            return typeof s === 'string' ? JSON.parse(s) : s;
          } catch {
            return undefined;
          }
        })
        .filter(isObj)
    : [];
  // Providers refuse a tool result that names no call. Many instrumentations record neither the
  // calls' ids nor the results' tool_call_id: a call without an id gets one unique in the
  // conversation, and a result without one answers the oldest call not yet answered.
  let minted = 0;
  const unanswered: string[] = [];
  const mintId = (taken: ReadonlySet<string>): string => {
    do minted += 1;
    while (taken.has(`call_${minted}`));
    return `call_${minted}`;
  };
  const knownIds = new Set(
    messages.flatMap((m) => [...(m.toolCalls ?? []).map((c) => c.id), m.toolCallId]).filter((id): id is string => !!id),
  );
  return {
    ...emptyDraft(),
    messages: messages.flatMap((m): DraftMessage[] => {
      const role = m.role === 'developer' ? 'system' : m.role;
      if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
      const content = m.parts
        .filter((p) => p.kind === 'text')
        .map((p) => p.text ?? '')
        .join('\n');
      if (role === 'tool') {
        const toolCallId = m.toolCallId || unanswered[0] || '';
        const answered = unanswered.indexOf(toolCallId);
        if (answered >= 0) unanswered.splice(answered, 1);
        return [{ role, content, toolCallId }];
      }
      const calls = (m.toolCalls ?? []).map((c) => ({ id: c.id || mintId(knownIds), name: c.name, arguments: c.arguments }));
      unanswered.push(...calls.map((c) => c.id));
      return [role === 'assistant' && calls.length > 0 ? { role, content, toolCalls: JSON.stringify(calls, null, 2) } : { role, content }];
    }),
    templateFormat: 'NONE',
    provider: PLAYGROUND_PROVIDERS.includes(provider) ? provider : 'OPENAI',
    modelName: text(llm.model_name) ?? 'gpt-4o-mini',
    temperature: text(all.temperature) ?? '',
    maxTokens: text(all.max_tokens) ?? text(all.max_completion_tokens) ?? '',
    otherParameters: JSON.stringify(
      Object.fromEntries(Object.entries(other).filter(([k]) => k !== 'max_completion_tokens' || all.max_tokens !== undefined)),
      null,
      2,
    ),
    tools: tools.length > 0 ? JSON.stringify(tools, null, 2) : '',
  };
};

/** A stored prompt version as the playground's draft: its messages, template format, model, parameters and tools. */
export const draftFromVersion = (
  promptName: string,
  version: {
    readonly sequenceNumber: number;
    readonly modelProvider: string;
    readonly modelName: string;
    readonly templateFormat: string;
    readonly template:
      | { readonly type: 'chat'; readonly messages: readonly { role: string; content: string | readonly Obj[] }[] }
      | { readonly type: 'string'; readonly template: string };
    readonly invocationParameters: Obj;
    readonly tools: Obj | null;
  },
): PlaygroundDraft => {
  const type = version.invocationParameters.type;
  const own = typeof type === 'string' ? version.invocationParameters[type] : undefined;
  const all = isObj(own) ? own : {};
  const other = Object.fromEntries(Object.entries(all).filter(([k]) => k !== 'temperature' && k !== 'max_tokens'));
  const tools = isObj(version.tools) && Array.isArray(version.tools.tools) ? version.tools.tools.filter(isObj) : [];
  const format = version.templateFormat;
  return {
    ...emptyDraft(),
    messages:
      version.template.type === 'chat' ? draftMessages(version.template.messages) : [{ role: 'user', content: version.template.template }],
    templateFormat: format === 'F_STRING' || format === 'NONE' ? format : 'MUSTACHE',
    provider: PLAYGROUND_PROVIDERS.includes(version.modelProvider) ? version.modelProvider : 'OPENAI',
    modelName: version.modelName,
    temperature: text(all.temperature) ?? '',
    maxTokens: text(all.max_tokens) ?? '',
    otherParameters: JSON.stringify(other, null, 2),
    tools: tools.length > 0 ? JSON.stringify(tools, null, 2) : '',
    openedFrom: { prompt: promptName, version: version.sequenceNumber },
  };
};
