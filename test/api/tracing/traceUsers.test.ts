import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * GET /v1/projects/{project}/users: the app's users (`user.id`), each with its traces, sessions,
 * tokens, cost, traces with an error and last seen; the figures equal the sums over the REST
 * traces and spans of the same project.
 */
const test = suite<{ server: TestServer }>('REST users of a project', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

/** A root span naming the user (or none) over a priced LLM span; minute `m` of the day; `failed` marks the LLM span an error. */
const turn = (m: number, user: string | null, session: string | null, prompt: number, completion: number, failed = false) => {
  const traceId = newTraceId();
  const at = (s: number) => nanos(new Date(Date.UTC(2024, 0, 1, 0, m, s)).toISOString());
  const root = spanRecord({
    traceId,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(5),
    attributes: attrs({ ...(user === null ? {} : { 'user.id': user }), ...(session === null ? {} : { 'session.id': session }) }),
  });
  const llm = spanRecord({
    traceId,
    parentId: root.spanId,
    spanKind: 'LLM',
    startTimeUnixNano: at(1),
    endTimeUnixNano: at(4),
    status: failed ? { code: 'ERROR', message: 'rate limited' } : { code: 'OK', message: '' },
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.token_count.prompt': prompt,
      'llm.token_count.completion': completion,
    }),
  });
  return [root, llm];
};

test('each user with its traces, sessions, tokens, cost, errors and last seen, equal to the sums over REST', async ({ server }) => {
  await seed(server, 'users-app', [
    ...turn(1, 'alice', 'chat-a', 100, 20),
    ...turn(2, 'alice', 'chat-a', 200, 40, true),
    ...turn(3, 'alice', null, 50, 5),
    ...turn(4, 'bob', 'chat-b', 10, 1),
    ...turn(5, null, null, 999, 999),
  ]);
  const { status, body } = await callJson(server, 'GET', '/v1/projects/users-app/users');
  assert.is(status, 200);
  assert.equal(
    body.data.map((u: { user_id: string }) => u.user_id),
    ['bob', 'alice'],
    'most recently seen first; the trace without a user is nobody’s',
  );

  // The same figures from the REST traces and spans: a trace's user from its root span.
  const traces = (await callJson(server, 'GET', '/v1/projects/users-app/traces?limit=100')).body.data;
  const spans = (await callJson(server, 'GET', '/v1/projects/users-app/spans?limit=100')).body.data;
  const userOf = new Map<string, string>();
  const sessionOf = new Map<string, string>();
  const failed = new Set<string>();
  for (const s of spans) {
    if (s.parent_id === null && s.attributes['user.id']) userOf.set(s.context.trace_id, s.attributes['user.id']);
    if (s.parent_id === null && s.attributes['session.id']) sessionOf.set(s.context.trace_id, s.attributes['session.id']);
    if (s.status_code === 'ERROR') failed.add(s.context.trace_id);
  }
  for (const user of body.data) {
    const mine = traces.filter((t: { trace_id: string }) => userOf.get(t.trace_id) === user.user_id);
    const sum = (f: (t: any) => number) => mine.reduce((n: number, t: any) => n + f(t), 0);
    assert.is(user.trace_count, mine.length, `${user.user_id}: traces`);
    assert.is(
      user.session_count,
      new Set(mine.map((t: any) => sessionOf.get(t.trace_id)).filter(Boolean)).size,
      `${user.user_id}: sessions`,
    );
    assert.is(user.error_count, mine.filter((t: any) => failed.has(t.trace_id)).length, `${user.user_id}: errors`);
    assert.is(
      user.token_count_prompt,
      sum((t) => t.token_count_prompt),
    );
    assert.is(
      user.token_count_completion,
      sum((t) => t.token_count_completion),
    );
    assert.is(
      user.token_count_total,
      sum((t) => t.token_count_total),
    );
    assert.ok(Math.abs(user.cost.total - sum((t) => t.cost.total)) < 1e-12, `${user.user_id}: cost ${user.cost.total}`);
    assert.is(
      user.last_seen,
      mine
        .map((t: any) => t.end_time)
        .sort()
        .at(-1),
    );
  }
  const alice = body.data[1];
  assert.equal(
    [alice.trace_count, alice.session_count, alice.error_count, alice.token_count_total],
    [3, 1, 1, 415],
    'alice: three traces, one session, one trace with an error',
  );
});

test('a project nobody names a user in has none; an unknown project is a 404', async ({ server }) => {
  await seed(server, 'anonymous-app', turn(1, null, null, 1, 1));
  assert.equal((await callJson(server, 'GET', '/v1/projects/anonymous-app/users')).body, { data: [] });
  const missing = await callJson(server, 'GET', '/v1/projects/no-such-app/users');
  assert.is(missing.status, 404);
});

test.run();
