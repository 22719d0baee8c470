/**
 * Chat messages as the editors hold them and as prompts store them. Stored prompts keep an
 * assistant's tool calls and a tool's result as content parts (`tool_call`, `tool_result`, each
 * naming the call's id); the editors show the text, the tool calls as a JSON array of
 * `{id, name, arguments}`, and for a tool message the id of the call it answers.
 */

export type EditableMessage = { role: string; content: string; toolCallId?: string; toolCalls?: string };
export type WireMessage = { role: string; content: string | Record<string, unknown>[] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const ASSISTANT = new Set(['assistant', 'ai', 'model']);

/** The messages in the stored shape, or the message that is wrong (1-based, as the editors number them). */
export const toWireMessages = (messages: readonly EditableMessage[]): { messages: WireMessage[] } | { problem: string } => {
  const out: WireMessage[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const id = (m.toolCallId ?? '').trim();
      if (id === '') return { problem: `Message ${i + 1}: a tool message needs the id of the tool call it answers` };
      out.push({ role: 'tool', content: [{ type: 'tool_result', tool_call_id: id, tool_result: m.content }] });
      continue;
    }
    const raw = ASSISTANT.has(m.role) ? (m.toolCalls ?? '').trim() : '';
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
      role: m.role,
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

/** Stored messages back into an editor: text joined, tool calls as JSON, a tool result as its text. Roles as stored. */
export const fromWireMessages = (messages: readonly { role: string; content: string | readonly Obj[] }[]): EditableMessage[] =>
  messages.map((m): EditableMessage => {
    if (typeof m.content === 'string') return { role: m.role, content: m.content };
    const text = m.content
      .filter((p) => p.type === 'text')
      .map((p) => String(p.text ?? ''))
      .join('');
    if (m.role === 'tool') {
      const result = m.content.find((p) => p.type === 'tool_result');
      const value = result?.tool_result;
      return {
        role: m.role,
        content: result === undefined ? text : typeof value === 'string' ? value : JSON.stringify(value ?? null),
        toolCallId: typeof result?.tool_call_id === 'string' ? result.tool_call_id : '',
      };
    }
    const calls = m.content
      .filter((p) => p.type === 'tool_call' && isObj(p.tool_call))
      .map((p) => {
        const call = p.tool_call as Obj;
        return { id: String(p.tool_call_id ?? ''), name: String(call.name ?? ''), arguments: String(call.arguments ?? '') };
      });
    return calls.length > 0 ? { role: m.role, content: text, toolCalls: JSON.stringify(calls, null, 2) } : { role: m.role, content: text };
  });
