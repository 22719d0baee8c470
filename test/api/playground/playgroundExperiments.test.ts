import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, type Credentials, login } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { type OpenAi, startOpenAi } from '../../peers/openAi.ts';

/**
 * A prompt over a dataset version from the playground, against a local OpenAI-compatible server:
 * one experiment on the version, one run per example (answer, refusal or template problem), each
 * provider call traced into the playground project.
 */

type Ctx = { server: TestServer; provider: OpenAi; admin: Credentials };
const test = suite<Ctx>('playground experiments REST', {} as Ctx);

const KEY = 'sk-playground-experiments-51ad';

test.before(async (ctx) => {
  ctx.provider = await startOpenAi();
  const env = authEnv({ SERVICE_PLAYGROUND_TIMEOUT_SECONDS: '5' });
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

const upload = async (ctx: Ctx, name: string, inputs: Record<string, unknown>[], action = 'create') => {
  const reply = await callAs(ctx.server, 'POST', '/v1/datasets/upload?sync=true', { as: ctx.admin, json: { action, name, inputs } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.data as { dataset_id: string; version_id: string };
};

const post = (ctx: Ctx, body: Record<string, unknown>, as: Credentials = ctx.admin) =>
  fetch(`${ctx.server.baseUrl}/v1/playground/experiments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(as.bearer ? { authorization: `Bearer ${as.bearer}` } : {}),
      ...(as.cookie ? { cookie: as.cookie } : {}),
    },
    body: JSON.stringify(body),
  });

const allEvents = async (res: Response): Promise<Event[]> => {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice(6)));
};

const experimentBody = (ctx: Ctx, datasetId: string, extra: Record<string, unknown> = {}) => ({
  provider: 'OPENAI',
  base_url: ctx.provider.baseUrl,
  model_name: 'echo',
  template_format: 'MUSTACHE',
  template: {
    type: 'chat',
    messages: [
      { role: 'system', content: 'Answer in {{language}}.' },
      { role: 'user', content: '{{question}}' },
    ],
  },
  variables: { language: 'French' },
  invocation_parameters: { temperature: 0 },
  dataset_id: datasetId,
  concurrency: 2,
  ...extra,
});

const playgroundSpans = async (ctx: Ctx): Promise<any[]> => {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const reply = await callAs(ctx.server, 'GET', '/v1/projects/playground/spans?limit=1000', { as: ctx.admin });
  assert.is(reply.status, 200);
  return reply.body.data;
};

test('given a dataset, when the prompt runs over it, then one experiment with a run per example: answers, refusals and template problems', async (ctx) => {
  const { dataset_id } = await upload(ctx, 'capitals', [
    { question: 'Paris?' },
    { question: '[429] Rome?' },
    { question: 'Oslo?' },
    { topic: 'no question here' },
  ]);
  const before = ctx.provider.received.length;
  const res = await post(ctx, experimentBody(ctx, dataset_id));
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const events = await allEvents(res);
  assert.equal(
    events.map((e) => e.type),
    ['experiment', 'run', 'run', 'run', 'run', 'done'],
  );
  const [created] = events;
  assert.is(created!.example_count, 4);
  assert.is(created!.experiment.dataset_id, dataset_id);
  assert.is(created!.experiment.example_count, 4);
  const runs = events.filter((e) => e.type === 'run').sort((a, b) => a.index - b.index);
  assert.equal(
    runs.map((r) => r.output),
    ['Echo: Paris?', null, 'Echo: Oslo?', null],
  );
  assert.is(runs[0]!.error, null);
  assert.match(runs[1]!.error, /OPENAI is rate limiting this key \(429 Too Many Requests\)/);
  assert.match(runs[3]!.error, /no value for variable "question"/);
  assert.equal([runs[0]!.prompt_tokens, runs[0]!.completion_tokens, runs[0]!.total_tokens], [12, 3, 15]);
  assert.ok(runs[0]!.latency_ms >= 0);
  assert.is(runs[3]!.trace_id, null, 'no provider call, no trace');
  assert.is(ctx.provider.received.length - before, 3, 'the example the template cannot take is not sent');
  const sent = ctx.provider.received.slice(before).find((r) => r.body.messages[1].content === 'Paris?')!;
  assert.is(sent.body.messages[0].content, 'Answer in French.', 'variables not in the example come from the playground');
  assert.is(sent.authorization, `Bearer ${KEY}`);
  const done = events.at(-1)!;
  assert.equal([done.succeeded, done.failed], [2, 2]);
  assert.equal([done.experiment.successful_run_count, done.experiment.failed_run_count, done.experiment.missing_run_count], [2, 2, 0]);

  // Then the experiment holds the runs, as the experiments API shows them
  const id = created!.experiment.id;
  const stored = await callAs(ctx.server, 'GET', `/v1/experiments/${id}/runs`, { as: ctx.admin });
  assert.is(stored.status, 200);
  assert.equal(stored.body.data.map((r: { output: unknown }) => r.output).sort(), ['Echo: Oslo?', 'Echo: Paris?', null, null].sort());
  const experiment = await callAs(ctx.server, 'GET', `/v1/experiments/${id}`, { as: ctx.admin });
  assert.is(experiment.body.data.project_name, 'playground');
  assert.is(experiment.body.data.metadata.source, 'playground');
  assert.is(experiment.body.data.metadata.model_name, 'echo');

  // And each provider call is a trace in the playground project, its token counts on the span
  const spans = await playgroundSpans(ctx);
  for (const run of runs.slice(0, 3)) {
    const span = spans.find((s) => s.context.trace_id === run.trace_id);
    assert.ok(span, `the trace of example ${run.index} is in the playground project`);
    if (run.index === 0) assert.is(span.attributes['llm.token_count.total'], 15);
    if (run.index === 1) assert.is(span.status_code, 'ERROR');
  }
});

test('given two versions, when the first is run with a variable mapping, then only its examples run, their nested keys filling the template', async (ctx) => {
  const first = await upload(ctx, 'nested', [{ q: { text: 'deep one' } }, { q: { text: 'deep two' } }]);
  await upload(ctx, 'nested', [{ q: { text: 'added later' } }], 'append');
  const res = await post(
    ctx,
    experimentBody(ctx, first.dataset_id, {
      dataset_version_id: first.version_id,
      variable_mapping: { question: 'q.text' },
      experiment_name: 'mapped run',
      concurrency: 1,
    }),
  );
  const events = await allEvents(res);
  const runs = events.filter((e) => e.type === 'run');
  assert.equal(runs.map((r) => r.output).sort(), ['Echo: deep one', 'Echo: deep two']);
  assert.is(events[0]!.experiment.name, 'mapped run');
  assert.is(events[0]!.experiment.dataset_version_id, first.version_id);
});

test('given a client that goes away, then the examples not yet started are not run, and the one under way is a failed run', async (ctx) => {
  const { dataset_id } = await upload(
    ctx,
    'abandoned',
    Array.from({ length: 5 }, (_, i) => ({ question: `q${i}` })),
  );
  const abandonedBefore = ctx.provider.abandoned();
  const controller = new AbortController();
  const res = await fetch(`${ctx.server.baseUrl}/v1/playground/experiments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.admin.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(experimentBody(ctx, dataset_id, { model_name: 'stalled', concurrency: 1 })),
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const experimentId = JSON.parse(first.slice(first.indexOf('data: ') + 6).split('\n\n')[0]!).experiment.id;
  // The first example is with the provider (which answers one word, then waits): the person leaves.
  for (let i = 0; i < 50 && ctx.provider.received.filter((r) => r.body.model === 'stalled').length === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
  controller.abort();
  for (let i = 0; i < 100 && ctx.provider.abandoned() === abandonedBefore; i++) await new Promise((r) => setTimeout(r, 50));
  assert.is(ctx.provider.abandoned() - abandonedBefore, 1, 'the provider call under way was stopped');
  let experiment: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < 100; i++) {
    experiment = (await callAs(ctx.server, 'GET', `/v1/experiments/${experimentId}`, { as: ctx.admin })).body.data;
    if (experiment.failed_run_count === 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal([experiment.successful_run_count, experiment.failed_run_count, experiment.missing_run_count], [0, 1, 4]);
  const runs = (await callAs(ctx.server, 'GET', `/v1/experiments/${experimentId}/runs`, { as: ctx.admin })).body.data;
  assert.match(runs[0].error, /the client closed the connection/);
  assert.is(ctx.provider.received.filter((r) => r.body.model === 'stalled').length, 1, 'no other example was sent');
});

test('bad input is refused before anything is created or sent, naming what is wrong', async (ctx) => {
  const { dataset_id } = await upload(ctx, 'refusals', [{ question: 'x' }]);
  const before = ctx.provider.received.length;
  const cases: [Record<string, unknown>, number, string, RegExp][] = [
    [experimentBody(ctx, 'not-an-id'), 422, 'invalid_dataset_id', /body\.dataset_id/],
    [experimentBody(ctx, Buffer.from('Dataset:999999').toString('base64')), 404, 'dataset_not_found', /not found/],
    [experimentBody(ctx, dataset_id, { dataset_version_id: 'nope' }), 422, 'invalid_version_id', /body\.dataset_version_id/],
    [
      experimentBody(ctx, dataset_id, { variable_mapping: { answer: 'a' } }),
      422,
      'invalid_variable_mapping',
      /no variable "answer".*"language", "question"/,
    ],
    [experimentBody(ctx, dataset_id, { concurrency: 50 }), 422, 'invalid_body', /concurrency/],
    [experimentBody(ctx, dataset_id, { provider: 'NOPE' }), 422, 'unknown_provider', /body\.provider/],
    [experimentBody(ctx, dataset_id, { api_key_secret: 'NO_SUCH_KEY' }), 422, 'missing_secret', /NO_SUCH_KEY/],
    [experimentBody(ctx, dataset_id, { base_url: 'http://169.254.169.254/v1' }), 403, 'base_url_not_allowed', /link-local/],
  ];
  for (const [body, status, code, detail] of cases) {
    const res = await post(ctx, body);
    const json = (await res.json()) as { code: string; detail: string };
    assert.is(res.status, status, JSON.stringify(json));
    assert.is(json.code, code);
    assert.match(json.detail, detail);
  }
  const experiments = await callAs(ctx.server, 'GET', `/v1/datasets/${dataset_id}/experiments`, { as: ctx.admin });
  assert.equal(experiments.body.data, [], 'no experiment was created');
  assert.is(ctx.provider.received.length, before, 'no provider was called');

  await createUser(ctx.server, ctx.admin, { email: 'vera@example.com', username: 'vera', role: 'VIEWER', password: 'vera-pw' });
  const viewer = await login(ctx.server, 'vera@example.com', 'vera-pw');
  assert.is((await post(ctx, experimentBody(ctx, dataset_id), viewer)).status, 403, 'viewers may not spend the keys');
});

test.run();
