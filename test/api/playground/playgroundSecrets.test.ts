import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, type Credentials, callAs, createKey, createUser, login } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * Who can make the server send a stored secret where, run as the hostile run did: auth on, real
 * listeners on loopback that record every request (and every credential header) they get.
 */

/** A listener on every local address (IPv4 and IPv6) that records requests and answers with `answer`. */
type Listener = {
  readonly port: number;
  readonly hits: { url: string; authorization: string | undefined; apiKey: string | undefined }[];
  close(): Promise<void>;
};

const listen = async (answer: (req: IncomingMessage, res: ServerResponse, port: number) => void): Promise<Listener> => {
  const hits: Listener['hits'] = [];
  let port = 0;
  const server = createServer(async (req, res) => {
    for await (const _ of req); // the body is not needed, only that the request arrived
    hits.push({ url: req.url ?? '', authorization: req.headers.authorization, apiKey: req.headers['x-api-key'] as string | undefined });
    answer(req, res, port);
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** An OpenAI-compatible answer: "Hello" as a stream. */
const streamHello = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.end(`${chunk({ role: 'assistant', content: 'Hello' })}${chunk({}, 'stop')}data: [DONE]\n\n`);
};

const INTERNAL = 'INTERNAL-DATA-7d1f0c';

type Ctx = {
  server: TestServer;
  admin: Credentials;
  member: Credentials;
  system: Credentials;
  viewer: Credentials;
  /** The member's own server. */
  own: Listener;
  /** The server an admin bound OLLAMA (and so OLLAMA_API_KEY) to. */
  bound: Listener;
  /** Answers 307 to `target`. */
  redirecting: Listener;
  target: Listener;
  /** An internal server answering errors with its data in the body. */
  internal: Listener;
};
const test = suite<Ctx>('playground: stored secrets go only where an admin bound them', {} as Ctx);

const DB_PASSWORD = 'db-password-5e1b9a2c';
const OPENAI_KEY = 'sk-team-openai-8c2d4f';
const OLLAMA_KEY = 'sk-team-ollama-1a9e3b';

test.before(async (ctx) => {
  ctx.own = await listen(streamHello);
  ctx.bound = await listen(streamHello);
  ctx.target = await listen(streamHello);
  ctx.redirecting = await listen((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${ctx.target.port}/v1/chat/completions` });
    res.end();
  });
  ctx.internal = await listen((req, res) => {
    if (req.url?.includes('/garbled/')) {
      // A 200 that is not a chat stream: a parse error must not carry a piece of it either.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${INTERNAL} not json\n\n`);
      return;
    }
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `${INTERNAL}: row 42 of accounts`, type: 'invalid_request_error' } }));
  });
  const env = authEnv({ SERVICE_LOG_LEVEL: 'debug' });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  const stored = await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: ctx.admin,
    json: {
      secrets: [
        { key: 'DB_PASSWORD', value: DB_PASSWORD },
        { key: 'OPENAI_API_KEY', value: OPENAI_KEY },
        { key: 'OLLAMA_API_KEY', value: OLLAMA_KEY },
        { key: 'OLLAMA_BASE_URL', value: `http://127.0.0.1:${ctx.bound.port}/v1` },
      ],
    },
  });
  assert.is(stored.status, 200, JSON.stringify(stored.body));
  await createUser(ctx.server, ctx.admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-pw' });
  await createUser(ctx.server, ctx.admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-pw' });
  const memberSession = await login(ctx.server, 'mia@example.com', 'mia-pw');
  ctx.member = { bearer: (await createKey(ctx.server, memberSession, 'user')).key };
  ctx.system = { bearer: (await createKey(ctx.server, ctx.admin, 'system')).key };
  ctx.viewer = await login(ctx.server, 'vic@example.com', 'vic-pw');
});
test.after(async (ctx) => {
  await ctx.server.close();
  for (const l of [ctx.own, ctx.bound, ctx.redirecting, ctx.target, ctx.internal]) await l.close();
});

type Event = { type: string; message?: string; trace_id?: string; span_id?: string; code?: string };

const run = async (ctx: Ctx, as: Credentials, body: Record<string, unknown>, path = '/v1/playground/chat') => {
  const res = await fetch(`${ctx.server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(as.bearer ? { authorization: `Bearer ${as.bearer}` } : { cookie: as.cookie! }) },
    body: JSON.stringify({
      provider: 'OPENAI',
      model_name: 'm',
      template: { type: 'chat', messages: [{ role: 'user', content: 'hi' }] },
      ...body,
    }),
  });
  const text = await res.text();
  const events: Event[] = text
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => JSON.parse(f.slice(6)));
  return {
    status: res.status,
    text,
    events,
    json: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null,
  };
};

const teamSecretsSeen = (l: Listener) =>
  everyCredential(l).filter((v) => [DB_PASSWORD, OPENAI_KEY, OLLAMA_KEY].some((secret) => v!.includes(secret)));
const everyCredential = (l: Listener) => l.hits.flatMap((h) => [h.authorization, h.apiKey]).filter((v) => v !== undefined);

test('a member naming a stored secret gets 403, and nothing is sent anywhere', async (ctx) => {
  for (const as of [ctx.member, ctx.system]) {
    for (const extra of [
      { api_key_secret: 'DB_PASSWORD', base_url: `http://127.0.0.1:${ctx.own.port}/v1` },
      { api_key_secret: 'DB_PASSWORD' },
      { api_key_secret: 'OPENAI_API_KEY', base_url: `http://127.0.0.1:${ctx.own.port}/v1` },
    ]) {
      const reply = await run(ctx, as, extra);
      assert.is(reply.status, 403, JSON.stringify(extra));
      assert.match(reply.json.code, /^(secret_not_allowed|stored_key_not_allowed)$/);
      assert.match(reply.json.detail, /body\.api_key_secret: .*api_key/);
    }
  }
  assert.is(ctx.own.hits.length, 0, 'no request left the server');
  const viewer = await run(ctx, ctx.viewer, { api_key_secret: 'DB_PASSWORD', base_url: `http://127.0.0.1:${ctx.own.port}/v1` });
  assert.is(viewer.status, 403);
  assert.is(ctx.own.hits.length, 0);
});

test("a member's own base URL, in every spelling of loopback, is called without the team's key", async (ctx) => {
  const port = ctx.own.port;
  const spellings = [
    '127.0.0.1',
    'localhost',
    '[::1]',
    '0.0.0.0',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '0x7f.1',
    '[::ffff:127.0.0.1]',
    '[::]',
  ];
  for (const host of spellings) {
    const reply = await run(ctx, ctx.member, { base_url: `http://${host}:${port}/v1` });
    assert.is(reply.status, 200, host);
    assert.equal(
      reply.events.map((e) => e.type),
      ['delta', 'done'],
      `${host}: the call was made (${reply.text})`,
    );
  }
  assert.is(ctx.own.hits.length, spellings.length, 'every spelling reached the listener');
  assert.equal(everyCredential(ctx.own), [], 'and none of them carried a key');
  const anthropic = await run(ctx, ctx.member, { provider: 'ANTHROPIC', base_url: `http://[::1]:${port}` });
  assert.is(anthropic.status, 200);
  assert.equal(everyCredential(ctx.own), [], 'nor as x-api-key');
});

test('a member may send their own key to their own base URL; it is neither echoed nor recorded', async (ctx) => {
  const own = 'sk-members-own-3b7c';
  const reply = await run(ctx, ctx.member, { base_url: `http://127.0.0.1:${ctx.own.port}/v1`, api_key: own });
  assert.equal(
    reply.events.map((e) => e.type),
    ['delta', 'done'],
  );
  assert.is(ctx.own.hits.at(-1)!.authorization, `Bearer ${own}`);
  const both = await run(ctx, ctx.member, { api_key: own, api_key_secret: 'OPENAI_API_KEY' });
  assert.is(both.status, 422);
  assert.is(both.json.code, 'conflicting_keys');
  const spans = await callAs(ctx.server, 'GET', '/v1/projects/playground/spans?limit=1000', { as: ctx.admin });
  assert.not.ok(JSON.stringify(spans.body).includes(own), 'the key is not in any span');
  assert.not.ok(
    ctx.server.logLines.some((l) => l.includes(own)),
    'nor in any log line',
  );
});

test('the base URL an admin bound a provider to gets its stored key, in any spelling; anywhere else gets none', async (ctx) => {
  const implicit = await run(ctx, ctx.member, { provider: 'OLLAMA' });
  assert.equal(
    implicit.events.map((e) => e.type),
    ['delta', 'done'],
    implicit.text,
  );
  assert.is(ctx.bound.hits.at(-1)!.authorization, `Bearer ${OLLAMA_KEY}`, 'the bound destination gets the key');
  const spelled = await run(ctx, ctx.member, { provider: 'OLLAMA', base_url: `http://0x7f.0.0.1:${ctx.bound.port}/v1/` });
  assert.is(spelled.events.at(-1)!.type, 'done');
  assert.is(
    ctx.bound.hits.at(-1)!.authorization,
    `Bearer ${OLLAMA_KEY}`,
    'the same destination spelled differently is the same destination',
  );
  const elsewhere = await run(ctx, ctx.member, { provider: 'OLLAMA', base_url: `http://127.0.0.1:${ctx.own.port}/v1` });
  assert.is(elsewhere.events.at(-1)!.type, 'done');
  assert.is(ctx.own.hits.at(-1)!.authorization, undefined, 'another base URL gets no key');
  const otherPath = await run(ctx, ctx.member, { provider: 'OLLAMA', base_url: `http://127.0.0.1:${ctx.bound.port}/other` });
  assert.is(otherPath.events.at(-1)!.type, 'done');
  assert.is(ctx.bound.hits.at(-1)!.authorization, undefined, 'another path on the same server is another base URL');
  assert.equal(teamSecretsSeen(ctx.own), [], 'the member listener never saw a stored secret');
});

test('an admin may send a stored secret to a base URL of their choice (they can read it anyway)', async (ctx) => {
  const reply = await run(ctx, ctx.admin, { api_key_secret: 'DB_PASSWORD', base_url: `http://127.0.0.1:${ctx.target.port}/v1` });
  assert.is(reply.events.at(-1)!.type, 'done');
  assert.is(ctx.target.hits.at(-1)!.authorization, `Bearer ${DB_PASSWORD}`);
  ctx.target.hits.length = 0;
});

test('a redirect is not followed, for anyone: the target is never hit and the key goes no further', async (ctx) => {
  for (const as of [ctx.member, ctx.admin]) {
    const reply = await run(ctx, as, { base_url: `http://127.0.0.1:${ctx.redirecting.port}/v1` });
    const last = reply.events.at(-1)!;
    assert.is(last.type, 'error');
    assert.is(last.message, 'OPENAI answered 307 (a redirect, which the playground does not follow)');
  }
  assert.is(ctx.redirecting.hits.length, 2);
  assert.is(ctx.target.hits.length, 0, 'the redirect target was never called');
});

test('an upstream error is its status and a generic message: its body is neither shown nor stored, only logged at debug', async (ctx) => {
  for (const as of [ctx.member, ctx.admin]) {
    const refused = await run(ctx, as, { base_url: `http://127.0.0.1:${ctx.internal.port}/v1` });
    assert.equal(refused.events, [
      {
        type: 'error',
        code: 'provider_error',
        message: 'OPENAI refused the request (400)',
        trace_id: refused.events[0]!.trace_id,
        span_id: refused.events[0]!.span_id,
      } as Event,
    ]);
    const garbled = await run(ctx, as, { base_url: `http://127.0.0.1:${ctx.internal.port}/garbled/v1` });
    assert.is(garbled.events.at(-1)!.message, 'OPENAI sent an answer the playground could not read');
    assert.not.ok(refused.text.includes(INTERNAL) || garbled.text.includes(INTERNAL), 'not in the response');
  }
  for (let i = 0; i < 50; i++) {
    const spans = await callAs(ctx.server, 'GET', '/v1/projects/playground/spans?limit=1000', { as: ctx.admin });
    const failed = (spans.body.data as { status_message: string }[]).filter((s) =>
      /refused the request \(400\)|could not read/.test(s.status_message),
    );
    if (failed.length === 4) {
      assert.not.ok(JSON.stringify(spans.body).includes(INTERNAL), 'not in a stored span');
      const logged = ctx.server.logLines.filter((l) => l.includes(INTERNAL));
      assert.ok(logged.length >= 2, 'the body is in the debug log');
      for (const line of logged) {
        assert.is(JSON.parse(line).level, 20, 'at debug level only');
        assert.not.ok(line.includes(OPENAI_KEY), 'without the key');
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.unreachable('the failed runs were not recorded');
});

test('the experiments route applies the same rules', async (ctx) => {
  const uploaded = await callAs(ctx.server, 'POST', '/v1/datasets/upload?sync=true', {
    as: ctx.admin,
    json: { action: 'create', name: 'questions', inputs: [{ q: 'one' }] },
  });
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  const body = { dataset_id: uploaded.body.data.dataset_id, base_url: `http://127.0.0.1:${ctx.own.port}/v1` };
  const before = ctx.own.hits.length;
  const refused = await run(ctx, ctx.member, { ...body, api_key_secret: 'DB_PASSWORD' }, '/v1/playground/experiments');
  assert.is(refused.status, 403);
  assert.is(refused.json.code, 'secret_not_allowed');
  const allowed = await run(ctx, ctx.member, body, '/v1/playground/experiments');
  assert.is(allowed.events.at(-1)!.type, 'done', allowed.text);
  assert.is(ctx.own.hits.length, before + 1);
  assert.is(ctx.own.hits.at(-1)!.authorization, undefined, 'the run carried no key');
});

test.run();
