import type { TemplateFormat } from './templateVariables.ts';

export type DraftRole = 'system' | 'user' | 'assistant' | 'tool';
export const DRAFT_ROLES: readonly DraftRole[] = ['system', 'user', 'assistant', 'tool'];
/**
 * One message as typed. An assistant message may carry the tool calls it made (a JSON array of
 * `{id, name, arguments}`), and a tool message answers one of them: `toolCallId` names it and
 * `content` is the tool's result.
 */
export type DraftMessage = { role: DraftRole; content: string; toolCallId?: string; toolCalls?: string };

/** A prompt message in the wire shape stored prompts use (content parts for tool calls and results). */
export type WireMessage = { role: string; content: string | Record<string, unknown>[] };

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
export const wireMessages = (messages: readonly DraftMessage[]): { messages: WireMessage[] } | { problem: string } => {
  const out: WireMessage[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const id = (m.toolCallId ?? '').trim();
      if (id === '') return { problem: `Message ${i + 1}: a tool message needs the id of the tool call it answers` };
      out.push({ role: 'tool', content: [{ type: 'tool_result', tool_call_id: id, tool_result: m.content }] });
      continue;
    }
    const raw = m.role === 'assistant' ? (m.toolCalls ?? '').trim() : '';
    if (raw === '') {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    let calls: unknown;
    try {
      calls = JSON.parse(raw);
    } catch {
      return { problem: `Message ${i + 1}: tool calls are not valid JSON` };
    }
    const valid = (c: unknown): c is { id: string; name: string; arguments?: unknown } =>
      isObj(c) && typeof c.id === 'string' && c.id !== '' && typeof c.name === 'string' && c.name !== '';
    if (!Array.isArray(calls) || !calls.every(valid))
      return { problem: `Message ${i + 1}: tool calls must be a JSON array of {"id", "name", "arguments"}` };
    out.push({
      role: 'assistant',
      content: [
        ...(m.content === '' ? [] : [{ type: 'text', text: m.content }]),
        ...calls.map((c) => ({
          type: 'tool_call',
          tool_call_id: c.id,
          tool_call: {
            type: 'function',
            name: c.name,
            arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
          },
        })),
      ],
    });
  }
  return { messages: out };
};

/** Stored or traced messages back into the editor: text joined, tool calls as JSON, a tool result as its text. */
export const draftMessages = (messages: readonly WireMessage[]): DraftMessage[] =>
  messages.flatMap((m): DraftMessage[] => {
    const role = m.role === 'developer' ? 'system' : m.role === 'model' || m.role === 'ai' ? 'assistant' : m.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
    if (typeof m.content === 'string') return [{ role, content: m.content }];
    const text = m.content
      .filter((p) => p.type === 'text')
      .map((p) => String(p.text ?? ''))
      .join('');
    if (role === 'tool') {
      const result = m.content.find((p) => p.type === 'tool_result');
      const value = result?.tool_result;
      return [
        {
          role,
          content: result === undefined ? text : typeof value === 'string' ? value : JSON.stringify(value ?? null),
          toolCallId: typeof result?.tool_call_id === 'string' ? result.tool_call_id : '',
        },
      ];
    }
    const calls = m.content
      .filter((p) => p.type === 'tool_call' && isObj(p.tool_call))
      .map((p) => {
        const call = p.tool_call as Obj;
        return { id: String(p.tool_call_id ?? ''), name: String(call.name ?? ''), arguments: String(call.arguments ?? '') };
      });
    return [
      calls.length > 0 && role === 'assistant'
        ? { role, content: text, toolCalls: JSON.stringify(calls, null, 2) }
        : { role, content: text },
    ];
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
  return {
    ...emptyDraft(),
    messages: messages.flatMap((m): DraftMessage[] => {
      const role = m.role === 'developer' ? 'system' : m.role;
      if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return [];
      const content = m.parts
        .filter((p) => p.kind === 'text')
        .map((p) => p.text ?? '')
        .join('\n');
      if (role === 'tool') return [{ role, content, toolCallId: m.toolCallId ?? '' }];
      const calls = (m.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${i + 1}`, name: c.name, arguments: c.arguments }));
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
