import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../ops/config.ts';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { type OpenAi, startOpenAi } from '../../peers/openAi.ts';

type Ctx = { server: TestServer; provider: OpenAi; admin: Credentials };
const test = suite<Ctx>('playground chat REST', {} as Ctx);

const KEY = 'sk-playground-test-4f9c2b7e';

test.before(async (ctx) => {
  ctx.provider = await startOpenAi();
  const env = authEnv({ SERVICE_PLAYGROUND_TIMEOUT_SECONDS: '1' });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  const stored = await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: ctx.admin,
    json: { secrets: [{ key: 'OPENAI_API_KEY', value: KEY }] },
  });
  assert.is(stored.status, 200);
});
test.after(async (ctx) => {
  await ctx.server.close();
  await ctx.provider.close();
});

type Event = { type: string; [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

const request = (ctx: Ctx, body: Record<string, unknown>, as: Credentials = ctx.admin) =>
  fetch(`${ctx.server.baseUrl}/v1/playground/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${as.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const chatBody = (ctx: Ctx, extra: Record<string, unknown> = {}) => ({
  provider: 'OPENAI',
  base_url: ctx.provider.baseUrl,
  model_name: 'words',
  template_format: 'MUSTACHE',
  template: {
    type: 'chat',
    messages: [
      { role: 'system', content: 'You greet {{audience}}.' },
      { role: 'user', content: [{ type: 'text', text: 'Say hello to {{name}}' }] },
    ],
  },
  variables: { audience: 'travellers', name: 'Ada' },
  invocation_parameters: { temperature: 0.2, max_tokens: 50 },
  ...extra,
});

/** Reads a Server-Sent Events body one event at a time, as a browser's reader would. */
async function* events(res: Response): AsyncGenerator<Event> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (frame.startsWith('data: ')) yield JSON.parse(frame.slice(6));
    }
  }
}

const allEvents = async (res: Response): Promise<Event[]> => {
  const out: Event[] = [];
  for await (const e of events(res)) out.push(e);
  return out;
};

const spanOf = async (ctx: Ctx, spanId: string) => {
  for (let i = 0; i < 50; i++) {
    const reply = await callAs(ctx.server, 'GET', '/v1/projects/playground/spans', { as: ctx.admin });
    const span = reply.status === 200 ? reply.body.data.find((s: any) => s.context.span_id === spanId) : undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (span !== undefined) return span;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`span ${spanId} never appeared in the playground project`);
};

test('streams the answer token by token, with the template filled and the stored key, then done with usage', async (ctx) => {
  const res = await request(ctx, chatBody(ctx, { model_name: 'gated' }));
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const stream = events(res);
  const first = await stream.next();
  // The provider holds the rest of its answer until this first word has reached us: it was not buffered.
  assert.equal(first.value, { type: 'delta', text: 'Hello' });
  ctx.provider.openGate();
  const rest: Event[] = [];
  for await (const e of stream) rest.push(e);
  assert.equal(
    rest.filter((e) => e.type === 'delta').map((e) => e.text),
    [' brave', ' world'],
  );
  const done = rest.at(-1)!;
  assert.is(done.type, 'done');
  assert.equal(done.usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
  assert.is(done.finish_reason, 'stop');
  assert.match(done.trace_id, /^[0-9a-f]{32}$/);

  const sent = ctx.provider.received.at(-1)!;
  assert.is(sent.authorization, `Bearer ${KEY}`, 'the stored secret is the key the provider gets');
  assert.equal(sent.body.messages, [
    { role: 'system', content: 'You greet travellers.' },
    { role: 'user', content: 'Say hello to Ada' },
  ]);
  assert.is(sent.body.temperature, 0.2);
  assert.is(sent.body.max_tokens, 50);
  assert.is(sent.body.stream, true);
});

test('every run is an LLM span with OpenInference attributes in the playground project', async (ctx) => {
  const all = await allEvents(
    await request(ctx, chatBody(ctx, { template_format: 'F_STRING', template: { type: 'string', template: 'Hi {name}, {{ok}}' } })),
  );
  const done = all.at(-1)!;
  assert.is(done.type, 'done');
  const span = await spanOf(ctx, done.span_id);
  assert.is(span.context.trace_id, done.trace_id);
  assert.is(span.span_kind, 'LLM');
  assert.is(span.status_code, 'OK');
  const flat = JSON.stringify(span.attributes);
  // The REST span shape keeps OpenInference's flattened keys.
  const a = span.attributes;
  assert.equal(JSON.parse(a['llm.invocation_parameters']), { temperature: 0.2, max_tokens: 50 });
  assert.is(a['llm.input_messages.0.message.role'], 'user');
  assert.is(a['llm.input_messages.0.message.content'], 'Hi Ada, {ok}');
  assert.is(a['llm.output_messages.0.message.role'], 'assistant');
  assert.is(a['llm.output_messages.0.message.content'], 'Hello brave world');
  assert.is(a['llm.model_name'], 'words');
  assert.is(a['llm.provider'], 'openai');
  assert.equal([a['llm.token_count.prompt'], a['llm.token_count.completion'], a['llm.token_count.total']], [12, 3, 15]);
  assert.not.ok(flat.includes(KEY), 'the key is not in the trace');
});

test('tool definitions are passed through and tool calls stream as events, assembled in done', async (ctx) => {
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  ];
  const all = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'tools', tools })));
  assert.equal(ctx.provider.received.at(-1)!.body.tools, tools);
  const deltas = all.filter((e) => e.type === 'tool_call_delta');
  assert.equal(
    deltas.map((d) => d.arguments),
    ['', '{"city":', '"Paris"}'],
  );
  assert.is(deltas[0]!.name, 'get_weather');
  const done = all.at(-1)!;
  assert.equal(done.tool_calls, [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
  assert.is(done.finish_reason, 'tool_calls');
  const span = await spanOf(ctx, done.span_id);
  assert.ok(JSON.stringify(span.attributes).includes('get_weather'));
});

test('provider 401, 429 and a hanging provider end the stream with a clear error event, recorded as an ERROR span', async (ctx) => {
  const unauthorized = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'unauthorized' })));
  assert.is(unauthorized.length, 1);
  assert.is(unauthorized[0]!.type, 'error');
  assert.match(unauthorized[0]!.message, /OPENAI rejected the API key \(401 Unauthorized\)/);
  assert.not.ok(JSON.stringify(unauthorized).includes(KEY), 'the echoed key is redacted');

  const limited = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'limited' })));
  assert.is(limited[0]!.message, 'OPENAI is rate limiting this key (429 Too Many Requests)', 'the status, not the body');
  const span = await spanOf(ctx, limited[0]!.span_id);
  assert.is(span.status_code, 'ERROR');
  assert.match(span.status_message, /429/);

  const started = Date.now();
  const hung = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'hang' })));
  assert.is(hung[0]!.type, 'error');
  assert.match(hung[0]!.message, /OPENAI sent nothing for 1 s \(timeout\)/);
  assert.ok(Date.now() - started < 5000, 'the configured timeout cut the call off');

  const stalled = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'stalled' })));
  assert.equal(
    stalled.map((e) => e.type),
    ['delta', 'error'],
    'a provider that stops mid-answer is a timeout, not a short answer',
  );
  assert.match(stalled[1]!.message, /OPENAI sent nothing for 1 s \(timeout\)/);
});

test('Anthropic through its SDK: the system prompt goes apart, the answer streams, an unknown key is a named 401', async (ctx) => {
  await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: ctx.admin,
    json: { secrets: [{ key: 'ANTHROPIC_API_KEY', value: 'sk-ant-test' }] },
  });
  const body = chatBody(ctx, { provider: 'ANTHROPIC', base_url: ctx.provider.origin, model_name: 'claude-test' });
  const all = await allEvents(await request(ctx, body));
  assert.equal(
    all.filter((e) => e.type === 'delta').map((e) => e.text),
    ['Bonjour', ' Ada'],
  );
  const done = all.at(-1)!;
  assert.equal(done.usage, { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
  assert.is(done.finish_reason, 'end_turn');
  const sent = ctx.provider.received.at(-1)!.body;
  assert.is(sent.system, 'You greet travellers.');
  assert.equal(sent.messages, [{ role: 'user', content: 'Say hello to Ada' }]);
  assert.is(sent.temperature, 0.2);
  assert.is((await spanOf(ctx, done.span_id)).attributes['llm.provider'], 'anthropic');

  await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: ctx.admin,
    json: { secrets: [{ key: 'ANTHROPIC_API_KEY', value: 'sk-ant-wrong' }] },
  });
  const refused = await allEvents(await request(ctx, body));
  assert.is(refused[0]!.message, 'ANTHROPIC rejected the API key (401 Unauthorized)');
});

test('a stored prompt version is run by id: its model, template, parameters and tools, the request overriding any of them', async (ctx) => {
  const created = await callAs(ctx.server, 'POST', '/v1/prompts', {
    as: ctx.admin,
    json: {
      prompt: { name: 'greeter' },
      version: {
        model_provider: 'OPENAI',
        model_name: 'words',
        template: { type: 'chat', messages: [{ role: 'user', content: 'Greet {{name}}' }] },
        template_type: 'CHAT',
        template_format: 'MUSTACHE',
        invocation_parameters: { type: 'openai', openai: { temperature: 0.9, max_tokens: 20 } },
        tools: { type: 'tools', tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] },
      },
    },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const versionId = created.body.data.id;
  const run = { prompt_version_id: versionId, base_url: ctx.provider.baseUrl, variables: { name: 'Grace' } };
  const all = await allEvents(await request(ctx, { ...run, invocation_parameters: { temperature: 0 } }));
  assert.is(all.at(-1)!.type, 'done');
  const sent = ctx.provider.received.at(-1)!.body;
  assert.is(sent.model, 'words');
  assert.equal(sent.messages, [{ role: 'user', content: 'Greet Grace' }]);
  assert.is(sent.temperature, 0, 'the request overrides the stored parameters');
  assert.is(sent.max_tokens, undefined);
  assert.equal(sent.tools, [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }]);

  const missing = await request(ctx, { ...run, prompt_version_id: Buffer.from('PromptVersion:999999').toString('base64') });
  assert.is(missing.status, 404);
  const garbage = await request(ctx, { ...run, prompt_version_id: 'nope' });
  assert.equal(await garbage.json(), {
    detail: 'body.prompt_version_id: "nope" is not a PromptVersion id',
    code: 'invalid_prompt_version_id',
  });
  const nothing = await request(ctx, { variables: {} });
  assert.is(nothing.status, 422);
  assert.match(((await nothing.json()) as { detail: string }).detail, /body\.provider: required unless prompt_version_id/);
});

test('the timeout is an idle timeout: a slow answer that keeps streaming is not cut off', async (ctx) => {
  const all = await allEvents(await request(ctx, chatBody(ctx, { model_name: 'trickle' })));
  assert.equal(
    all.filter((e) => e.type === 'delta').map((e) => e.text),
    ['Hello', ' slow', ' and', ' steady', ' brave', ' world'],
  );
  assert.is(all.at(-1)!.type, 'done');
});

test('a client that goes away stops the provider call, and the run is recorded as cut off', async (ctx) => {
  const abort = new AbortController();
  const res = await fetch(`${ctx.server.baseUrl}/v1/playground/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.admin.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(chatBody(ctx, { model_name: 'stalled', variables: { audience: 'x', name: 'gone-away-marker' } })),
    signal: abort.signal,
  });
  const first = await events(res).next();
  assert.equal(first.value, { type: 'delta', text: 'Hello' });
  abort.abort();
  for (let i = 0; i < 50 && ctx.provider.abandoned() < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.is(ctx.provider.abandoned(), 2, 'the provider connection was closed (the first was the stalled timeout)');
  for (let i = 0; i < 50; i++) {
    const spans = (await callAs(ctx.server, 'GET', '/v1/projects/playground/spans', { as: ctx.admin })).body.data;
    const span = spans.find((s: { attributes: Record<string, unknown> }) => JSON.stringify(s.attributes).includes('gone-away-marker'));
    if (span !== undefined) {
      assert.is(span.status_code, 'ERROR');
      assert.is(span.status_message, 'the client closed the connection');
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.unreachable('the cut-off run was not recorded');
});

const toolConversation = {
  type: 'chat',
  messages: [
    { role: 'user', content: 'Weather in {{city}}?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', tool_call_id: 'call_9', tool_call: { type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'call_9', tool_result: { temp: 21 } }] },
    { role: 'user', content: 'Is that warm?' },
  ],
};

test("a conversation with a tool call and its result goes out in each provider's own shape, and is traced with the call id", async (ctx) => {
  const done = (await allEvents(await request(ctx, chatBody(ctx, { template: toolConversation, variables: { city: 'Paris' } })))).at(-1)!;
  assert.is(done.type, 'done');
  const sent = ctx.provider.received.at(-1)!.body;
  assert.equal(sent.messages, [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_9', content: '{"temp":21}' },
    { role: 'user', content: 'Is that warm?' },
  ]);
  const span = await spanOf(ctx, done.span_id);
  assert.is(span.attributes['llm.input_messages.2.message.tool_call_id'], 'call_9');
  assert.is(span.attributes['llm.input_messages.1.message.tool_calls.0.tool_call.function.name'], 'get_weather');

  await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: ctx.admin,
    json: { secrets: [{ key: 'ANTHROPIC_API_KEY', value: 'sk-ant-test' }] },
  });
  const anthropic = chatBody(ctx, {
    provider: 'ANTHROPIC',
    base_url: ctx.provider.origin,
    model_name: 'claude-test',
    template: toolConversation,
    variables: { city: 'Paris' },
  });
  assert.is((await allEvents(await request(ctx, anthropic))).at(-1)!.type, 'done');
  assert.equal(ctx.provider.received.at(-1)!.body.messages, [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_9', content: '{"temp":21}' }] },
    { role: 'user', content: 'Is that warm?' },
  ]);
});

test('bad input is a 422 naming what is wrong, before any provider call', async (ctx) => {
  const before = ctx.provider.received.length;
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ provider: 'FOOBAR' }, 'unknown_provider', /"FOOBAR" is not a model provider: use one of OPENAI, ANTHROPIC/],
    [{ provider: 'GOOGLE' }, 'unknown_provider', /not supported by the playground yet/],
    [{ provider: 'OLLAMA', base_url: null }, 'missing_base_url', /OLLAMA .* needs its base URL/],
    [
      { template_format: 'F_STRING', template: { type: 'chat', messages: [{ role: 'user', content: 'Hi {name' }] } },
      'invalid_template',
      /body\.template\.messages\.0\.content \(F_STRING\): "\{" at character 3 is never closed/,
    ],
    [{ variables: { audience: 'x' } }, 'invalid_template', /no value for variable "name"/],
    [{ api_key_secret: 'ACME_API_KEY' }, 'missing_secret', /store a secret named ACME_API_KEY .* or set ACME_API_KEY/],
    [{ invocation_parameters: { stream: false } }, 'invalid_invocation_parameters', /stream/],
    [{ model_name: '' }, 'invalid_body', /body\.model_name/],
    [
      { template: { type: 'chat', messages: [{ role: 'tool', content: 'no id' }] } },
      'invalid_template',
      /body\.template\.messages\.0\.content: a tool message needs a tool_result part naming the tool_call_id/,
    ],
    [
      {
        template: {
          type: 'chat',
          messages: [
            {
              role: 'user',
              content: [{ type: 'tool_call', tool_call_id: 'c', tool_call: { type: 'function', name: 'f', arguments: '' } }],
            },
          ],
        },
      },
      'invalid_template',
      /only assistant messages carry tool calls/,
    ],
  ];
  for (const [extra, code, detail] of cases) {
    const res = await request(ctx, chatBody(ctx, extra));
    const json = (await res.json()) as { code: string; detail: string };
    assert.is(res.status, 422, JSON.stringify(extra));
    assert.is(json.code, code, JSON.stringify(json));
    assert.match(json.detail, detail);
  }
  assert.is(ctx.provider.received.length, before, 'nothing reached the provider');
});

test('viewers may not run the playground; the key is never in a response or a log line', async (ctx) => {
  await createUser(ctx.server, ctx.admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-pw' });
  const viewer = await login(ctx.server, 'vic@example.com', 'vic-pw');
  const res = await fetch(`${ctx.server.baseUrl}/v1/playground/chat`, {
    method: 'POST',
    headers: { cookie: viewer.cookie!, 'content-type': 'application/json' },
    body: JSON.stringify(chatBody(ctx)),
  });
  assert.is(res.status, 403);
  assert.not.ok(
    ctx.server.logLines.some((line) => line.includes(KEY)),
    'no log line holds the key',
  );
});

test('a key in the server environment is used when no secret is stored (config reads the provider variable)', () => {
  const config = loadConfig({ OPENAI_API_KEY: ' sk-env ', SERVICE_PLAYGROUND_TIMEOUT_SECONDS: '5' });
  assert.equal(config.playground, {
    timeoutSeconds: 5,
    environmentKeys: { OPENAI_API_KEY: 'sk-env' },
    environmentBaseUrls: {},
    allowedBaseUrls: [],
  });
  const bound = loadConfig({ OLLAMA_BASE_URL: 'http://0x7f.1:11434/v1', OPENAI_BASE_URL: 'https://Gateway.example.com/openai' });
  assert.equal(bound.playground.environmentBaseUrls, {
    OPENAI_BASE_URL: 'https://gateway.example.com/openai/',
    OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1/',
  });
  assert.throws(() => loadConfig({ OLLAMA_BASE_URL: 'ftp://x' }), /OLLAMA_BASE_URL/);
});

test.run();
