import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The usage every answer reports, and the dated model OpenAI answers `gpt-4o-mini` with. */
export const OPENAI_USAGE = { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 } as const;
export const OPENAI_RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';

export type OpenAiApi = {
  /** `http://127.0.0.1:<port>/v1`: the base URL the `openai` SDK is given. */
  readonly baseUrl: string;
  close(): Promise<void>;
};

/**
 * A local stand-in for OpenAI's Chat Completions API, non-streaming (`POST /v1/chat/completions`
 * answered with a `chat.completion` object and its `usage`, as api.openai.com answers), for
 * instrumentations that wrap the official SDK. The answer is "Paris." whatever was asked.
 */
export const startOpenAiApi = async (): Promise<OpenAiApi> => {
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const part of req) raw += part;
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
      return;
    }
    const body = JSON.parse(raw) as { model?: string };
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
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
