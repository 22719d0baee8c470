import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in LLM judge: an OpenAI-compatible server whose answer is a tool call naming a label. */
export type JudgeOpenAi = {
  /** `http://127.0.0.1:<port>/v1`: the base URL an OpenAI client is given (`OPENAI_BASE_URL`). */
  readonly baseUrl: string;
  /** Every chat completion request received (refused ones too), as sent. */
  readonly received: { readonly authorization: string | undefined; readonly body: Record<string, unknown> }[];
  close(): Promise<void>;
};

export type JudgeOptions = {
  /** The label for a prompt (the rendered user messages); `correct`/`incorrect` by default, on the word "wrong". */
  readonly label?: (prompt: string) => string;
  /** Each answer waits this long first (a judge's latency, for the benchmark). */
  readonly delayMs?: number;
  /** The first this-many requests are refused with 429, as a rate-limited provider does. */
  readonly refuseFirst?: number;
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-judge',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'judge',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/**
 * Speaks the Chat Completions streaming protocol (`text/event-stream`, `data: [DONE]`) and answers
 * every request with one call of the first tool it was offered, its arguments `{explanation,
 * label}`; a request without tools gets the label as text.
 */
export const startJudgeOpenAi = async (options: JudgeOptions = {}): Promise<JudgeOpenAi> => {
  const received: JudgeOpenAi['received'] = [];
  const label = options.label ?? ((prompt: string) => (/\bwrong\b/i.test(prompt) ? 'incorrect' : 'correct'));
  let refused = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const part of req) raw += part;
    const body = JSON.parse(raw) as Record<string, unknown>;
    received.push({ authorization: req.headers.authorization, body });
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    if (refused < (options.refuseFirst ?? 0)) {
      refused++;
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_exceeded', param: null, code: 'rate_limit_exceeded' } }),
      );
      return;
    }
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const messages = (body.messages ?? []) as { role: string; content: unknown }[];
    const prompt = messages
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
      .join('\n');
    const chosen = label(prompt);
    const tool = ((body.tools ?? []) as { function?: { name?: string } }[])[0]?.function?.name;
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send(chunk({ role: 'assistant', content: '' }));
    if (tool) {
      const args = JSON.stringify({ explanation: `judged ${chosen}`, label: chosen });
      send(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: tool, arguments: '' } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      send(chunk({}, 'tool_calls'));
    } else {
      send(chunk({ content: chosen }));
      send(chunk({}, 'stop'));
    }
    send({ ...chunk({}), choices: [], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
    res.end('data: [DONE]\n\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
