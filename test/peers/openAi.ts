import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The usage a non-streamed answer reports, and the dated model OpenAI answers `gpt-4o-mini` with. */
export const OPENAI_USAGE = { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 } as const;
export const OPENAI_RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';

/** One request the stand-in received (refused ones too), as sent. */
export type Received = { readonly authorization: string | undefined; readonly body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

export type OpenAi = {
  /** `http://127.0.0.1:<port>/v1`: the base URL an OpenAI client is given (`OPENAI_BASE_URL`). */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`: the base URL an Anthropic client is given (it adds `/v1/messages`). */
  readonly origin: string;
  readonly received: Received[];
  /** How many `stalled` answers were cut off by their caller. */
  readonly abandoned: () => number;
  /** Lets the `gated` model send the rest of its answer. */
  openGate(): void;
  close(): Promise<void>;
};

export type OpenAiOptions = {
  /** The `judge` model's label for a prompt (its user messages): `correct`, or `incorrect` on the word "wrong", by default. */
  readonly judgeLabel?: (prompt: string) => string;
  /** Each chat completion waits this long first (a provider's latency, for benchmarks). */
  readonly delayMs?: number;
  /** The first this-many chat completions are refused with 429, as a rate-limited provider does. */
  readonly refuseFirst?: number;
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-standin',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'standin',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const defaultJudgeLabel = (prompt: string) => (/\bwrong\b/i.test(prompt) ? 'incorrect' : 'correct');

/**
 * The one local stand-in for OpenAI (and Anthropic's Messages API), speaking the real protocols.
 * A request without `stream: true` gets a `chat.completion` object answering "Paris." with its
 * `usage`, as api.openai.com answers the official SDK. A streamed one (`text/event-stream` chunks
 * ending with `data: [DONE]`, usage when `stream_options.include_usage` asks) is picked by the
 * model name: `words` (or any other name) and `gated` stream "Hello", " brave", " world" (`gated`
 * waits for `openGate()` after the first word), `tools` streams a `get_weather` call in pieces,
 * `judge` calls the first tool it was offered with `{explanation, label}` (the label as text
 * without tools), `unauthorized` answers 401 (echoing the key it got, as a careless server
 * might), `limited` 429, `hang` never answers, `stalled` sends one word and then nothing until
 * the caller goes away, `trickle` sends a word every 600 ms (slower in total than a 1 s idle
 * timeout, never idle that long), `echo` answers "Echo: " and the last user message (429 when that
 * message holds `[429]`). `POST /v1/messages` answers as Anthropic does to the key `sk-ant-test`.
 */
export const startOpenAi = async (options: OpenAiOptions = {}): Promise<OpenAi> => {
  const received: Received[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hanging = new Set<ServerResponse>();
  let abandoned = 0;
  let refused = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const part of req) raw += part;
    const body = JSON.parse(raw);
    received.push({ authorization: req.headers.authorization, body });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const fail = (status: number, message: string, type: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type, param: null, code: type } }));
    };
    if (req.method === 'POST' && req.url === '/v1/messages') return anthropic(req, res, body);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(404, `no route ${req.method} ${req.url}`, 'not_found');
    if (refused < (options.refuseFirst ?? 0)) {
      refused++;
      return fail(429, 'Rate limit reached for requests', 'rate_limit_exceeded');
    }
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    if (body.stream !== true) return completion(res, body);
    if (body.model === 'unauthorized') return fail(401, `Incorrect API key provided: ${req.headers.authorization}`, 'invalid_api_key');
    if (body.model === 'limited') return fail(429, 'Rate limit reached for requests', 'rate_limit_exceeded');
    const messages = (body.messages ?? []) as { role: string; content: unknown }[];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content;
    if (body.model === 'echo' && String(lastUser).includes('[429]'))
      return fail(429, 'Rate limit reached for requests', 'rate_limit_exceeded');
    if (body.model === 'hang') {
      hanging.add(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send(chunk({ role: 'assistant', content: '' }));
    if (body.model === 'judge') {
      const prompt = messages
        .filter((m) => m.role === 'user')
        .map((m) => String(m.content))
        .join('\n');
      const label = (options.judgeLabel ?? defaultJudgeLabel)(prompt);
      const tool = ((body.tools ?? []) as { function?: { name?: string } }[])[0]?.function?.name;
      if (tool) {
        const args = JSON.stringify({ explanation: `judged ${label}`, label });
        send(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: tool, arguments: '' } }] }));
        send(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
        send(chunk({}, 'tool_calls'));
      } else {
        send(chunk({ content: label }));
        send(chunk({}, 'stop'));
      }
    } else if (body.model === 'tools') {
      send(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }));
      send(chunk({}, 'tool_calls'));
    } else if (body.model === 'echo') {
      send(chunk({ content: 'Echo: ' }));
      send(chunk({ content: String(lastUser) }));
      send(chunk({}, 'stop'));
    } else {
      send(chunk({ content: 'Hello' }));
      if (body.model === 'gated') await gate;
      if (body.model === 'stalled') {
        hanging.add(res);
        res.on('close', () => abandoned++);
        return;
      }
      if (body.model === 'trickle')
        for (const word of [' slow', ' and', ' steady']) {
          await new Promise((r) => setTimeout(r, 600));
          send(chunk({ content: word }));
        }
      send(chunk({ content: ' brave' }));
      send(chunk({ content: ' world' }));
      send(chunk({}, 'stop'));
    }
    if (body.stream_options?.include_usage)
      send({ ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    res.end('data: [DONE]\n\n');
  };

  // Non-streamed, as the official SDK asks by default: one `chat.completion` object.
  const completion = (res: ServerResponse, body: { model?: string }) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-standin',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model === 'gpt-4o-mini' ? OPENAI_RESPONSE_MODEL : body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Paris.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: OPENAI_USAGE,
      }),
    );
  };

  // Anthropic's Messages streaming protocol: named events, usage split between start and end.
  const anthropic = (req: IncomingMessage, res: ServerResponse, body: Record<string, any>) => {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    if (req.headers['x-api-key'] !== 'sk-ant-test') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const usage = { input_tokens: 9, output_tokens: 1 };
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [],
        model: body.model,
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const text of ['Bonjour', ' Ada']) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } });
    event('message_stop', {});
    res.end();
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
    origin: `http://127.0.0.1:${port}`,
    received,
    abandoned: () => abandoned,
    openGate: () => release(),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
