/**
 * What a table row shows of an LLM span's input and output: the last user message and the
 * answer, or the tool calls it asked for ("→ lookup_account({…})"), from the OpenInference
 * message attributes (flat keys); null when the span has no such messages.
 */
const messagesOf = (a: Record<string, unknown>, side: 'input' | 'output'): Map<number, Record<string, unknown>> => {
  const prefix = `llm.${side}_messages.`;
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const [key, value] of Object.entries(a)) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    const dot = rest.indexOf('.');
    const index = Number(rest.slice(0, dot));
    if (dot < 0 || !Number.isInteger(index)) continue;
    const message = byIndex.get(index) ?? {};
    message[rest.slice(dot + 1)] = value;
    byIndex.set(index, message);
  }
  return byIndex;
};

const toolCalls = (m: Record<string, unknown>): string[] => {
  const calls: string[] = [];
  for (let i = 0; typeof m[`message.tool_calls.${i}.tool_call.function.name`] === 'string'; i++) {
    const args = m[`message.tool_calls.${i}.tool_call.function.arguments`];
    calls.push(`→ ${m[`message.tool_calls.${i}.tool_call.function.name`]}(${typeof args === 'string' ? args : ''})`);
  }
  return calls;
};

export const messagePreview = (a: Record<string, unknown>, side: 'input' | 'output'): string | null => {
  const messages = [...messagesOf(a, side).entries()].sort(([x], [y]) => x - y).map(([, m]) => m);
  if (messages.length === 0) return null;
  if (side === 'input') {
    const lastUser = messages.filter((m) => m['message.role'] === 'user' && typeof m['message.content'] === 'string').at(-1);
    return lastUser ? (lastUser['message.content'] as string).slice(0, 300) : null;
  }
  const last = messages.at(-1)!;
  // Tool calls first: in a narrow column they are what shows.
  const answer = typeof last['message.content'] === 'string' ? (last['message.content'] as string) : '';
  const parts = [...toolCalls(last), answer].filter(Boolean);
  return parts.length === 0 ? null : parts.join(' ').slice(0, 300);
};
