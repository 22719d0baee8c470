import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { changePromptLabels, setPromptLabels } from '../../../domain/prompts/changePromptLabels.ts';
import { findPrompt } from '../../../projections/prompts/promptQueries.ts';
import { dataOf, gql } from '../graphql/gqlClient.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('prompts over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const chat = (content: string, over: Record<string, unknown> = {}) => ({
  description: 'v',
  model_provider: 'OPENAI',
  model_name: 'gpt-4o-mini',
  template: { type: 'chat', messages: [{ role: 'user', content }] },
  template_type: 'CHAT',
  template_format: 'MUSTACHE',
  invocation_parameters: { type: 'openai', openai: { temperature: 0.2 } },
  ...over,
});
const create = (server: TestServer, name: string, version: unknown, prompt: Record<string, unknown> = {}) =>
  callJson(server, 'POST', '/v1/prompts', { prompt: { name, ...prompt }, version });
const decoded = (id: string) => Buffer.from(id, 'base64').toString();

test('given nothing, when a prompt is posted, then PromptCreated and PromptVersionAdded, and the version echoes what was sent', async ({
  server,
}) => {
  const version = chat('Hello {{ name }}', {
    tools: {
      type: 'tools',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: { type: 'zero_or_more' },
    },
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } },
  });
  const out = await httpSpec(server)
    .given()
    .when('POST', '/v1/prompts', { body: { prompt: { name: 'greeter', description: 'says hi', metadata: { team: 'ai' } }, version } })
    .then({
      status: 200,
      events: (events: readonly DomainEvent[]) => {
        assert.equal(
          events.map((e) => e.type),
          ['PromptCreated', 'PromptVersionAdded'],
        );
        const created = events[0]!.data as Record<string, unknown>;
        assert.equal(
          { ...created, promptId: 'x' },
          { promptId: 'x', name: 'greeter', description: 'says hi', metadata: { team: 'ai' }, sourcePromptId: null },
        );
      },
    });
  const data = (out.body as { data: Record<string, unknown> }).data;
  assert.match(decoded(String(data.id)), /^PromptVersion:\d+$/);
  assert.equal(Object.keys(data), [
    'description',
    'model_provider',
    'model_name',
    'template',
    'template_type',
    'template_format',
    'invocation_parameters',
    'tools',
    'response_format',
    'id',
  ]);
  assert.equal({ ...data, id: undefined }, { ...version, id: undefined });

  const listed = await callJson(server, 'GET', '/v1/prompts');
  const greeter = listed.body.data.find((p: { name: string }) => p.name === 'greeter');
  assert.equal(
    { ...greeter, id: 'x' },
    { name: 'greeter', description: 'says hi', source_prompt_id: null, metadata: { team: 'ai' }, id: 'x' },
  );
  assert.match(decoded(greeter.id), /^Prompt:\d+$/);
  // By name and by GlobalID alike.
  for (const identifier of ['greeter', encodeURIComponent(greeter.id)]) {
    const latest = await callJson(server, 'GET', `/v1/prompts/${identifier}/latest`);
    assert.is(latest.body.data.id, data.id);
  }
  const byId = await callJson(server, 'GET', `/v1/prompt_versions/${encodeURIComponent(String(data.id))}`);
  assert.equal(byId.body.data, data);
});

test('posting to an existing name appends a version and leaves the prompt as it was; versions list newest first, paged', async ({
  server,
}) => {
  await create(server, 'paged', chat('one'), { description: 'first' });
  const second = await create(server, 'paged', chat('two'), { description: 'ignored', metadata: { ignored: true } });
  assert.is(second.status, 200, second.text);
  const third = await create(server, 'paged', chat('three', { description: null }));
  assert.is(third.body.data.description, '', 'no description is answered as ""');
  const prompt = (await callJson(server, 'GET', '/v1/prompts')).body.data.find((p: { name: string }) => p.name === 'paged');
  assert.is(prompt.description, 'first');
  assert.equal(prompt.metadata, {});
  const page1 = await callJson(server, 'GET', '/v1/prompts/paged/versions?limit=2');
  assert.equal(
    page1.body.data.map((v: { template: { messages: { content: string }[] } }) => v.template.messages[0]!.content),
    ['three', 'two'],
  );
  const page2 = await callJson(server, 'GET', `/v1/prompts/paged/versions?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
  assert.equal(
    page2.body.data.map((v: { template: { messages: { content: string }[] } }) => v.template.messages[0]!.content),
    ['one'],
  );
  assert.is(page2.body.next_cursor, null);
  assert.is((await callJson(server, 'GET', '/v1/prompts/paged/latest')).body.data.id, third.body.data.id);
});

test('OpenAI-compatible invocation parameters are stored as "openai"; unset nested keys stay unset', async ({ server }) => {
  const out = await create(
    server,
    'azure-one',
    chat('x', { model_provider: 'AZURE_OPENAI', invocation_parameters: { type: 'azure_openai', azure_openai: { max_tokens: 5 } } }),
  );
  assert.is(out.status, 200, out.text);
  assert.equal(out.body.data.invocation_parameters, { type: 'openai', openai: { max_tokens: 5 } });
  assert.not.ok('tools' in out.body.data);
  assert.not.ok('response_format' in out.body.data);
});

test('tags: set, list, fetch by tag, move to another version, remove; a tag follows its prompt only', async ({ server }) => {
  const v1 = (await create(server, 'tagged', chat('one'))).body.data.id;
  const v2 = (await create(server, 'tagged', chat('two'))).body.data.id;
  const path = (v: string) => `/v1/prompt_versions/${encodeURIComponent(v)}/tags`;
  await httpSpec(server)
    .given()
    .when('POST', path(v1), { body: { name: 'production', description: 'live' } })
    .then({
      status: 204,
      events: (events: readonly DomainEvent[]) => {
        assert.equal(
          events.map((e) => e.type),
          ['PromptTagSet'],
        );
        assert.is((events[0]!.data as { name: string }).name, 'production');
      },
    });
  const tags = await callJson(server, 'GET', path(v1));
  assert.equal(
    tags.body.data.map((t: { name: string; description?: string }) => [t.name, t.description]),
    [['production', 'live']],
  );
  assert.match(decoded(tags.body.data[0].id), /^PromptVersionTag:\d+$/);
  assert.is((await callJson(server, 'GET', '/v1/prompts/tagged/tags/production')).body.data.id, v1);
  // Setting the same tag again changes nothing; setting it on v2 moves it.
  await httpSpec(server)
    .given()
    .when('POST', path(v1), { body: { name: 'production', description: 'live' } })
    .then({ status: 204, events: [] });
  assert.is((await callJson(server, 'POST', path(v2), { name: 'production' })).status, 204);
  assert.is((await callJson(server, 'GET', '/v1/prompts/tagged/tags/production')).body.data.id, v2);
  assert.equal((await callJson(server, 'GET', path(v1))).body.data, []);
  const moved = (await callJson(server, 'GET', path(v2))).body.data;
  assert.equal(
    moved.map((t: { name: string }) => t.name),
    ['production'],
  );
  assert.not.ok('description' in moved[0], 'a tag without description leaves it out');
  assert.is(moved[0].id, tags.body.data[0].id, 'a moved tag keeps its id');
  // The reference removes the prompt's tag of that name through any of its versions.
  await httpSpec(server)
    .given()
    .when('DELETE', `${path(v1)}/production`)
    .then({
      status: 204,
      events: (events) =>
        assert.equal(
          events.map((e) => e.type),
          ['PromptTagRemoved'],
        ),
    });
  assert.is((await callJson(server, 'GET', '/v1/prompts/tagged/tags/production')).status, 404);
  assert.is((await callJson(server, 'DELETE', `${path(v1)}/production`)).status, 404);
  // Another prompt's tag of the same name is another tag.
  const other = (await create(server, 'other', chat('o'))).body.data.id;
  await callJson(server, 'POST', path(other), { name: 'production' });
  assert.is((await callJson(server, 'GET', '/v1/prompts/tagged/tags/production')).status, 404);
});

test('PATCH changes description and metadata (replaced whole); the prompt answers with its new fields', async ({ server }) => {
  await create(server, 'patched', chat('x'), { description: 'old', metadata: { a: 1, b: 2 } });
  await httpSpec(server)
    .given()
    .when('PATCH', '/v1/prompts/patched', { body: { metadata: { c: 3 } } })
    .then({
      status: 200,
      body: (body: { data: Record<string, unknown> }) => {
        assert.is(body.data.description, 'old');
        assert.equal(body.data.metadata, { c: 3 });
      },
      events: (events) =>
        assert.equal(
          events.map((e) => [e.type, Object.keys(e.data as object)]),
          [['PromptUpdated', ['promptId', 'metadata']]],
        ),
    });
  const cleared = await callJson(server, 'PATCH', '/v1/prompts/patched', { description: null });
  assert.is(cleared.body.data.description, null);
  assert.is((await callJson(server, 'PATCH', '/v1/prompts/patched', {})).status, 422);
});

test('DELETE removes the prompt with its versions, tags and labels; the name can be used again', async ({ server }) => {
  const v = (await create(server, 'doomed', chat('x'))).body.data.id;
  await callJson(server, 'POST', `/v1/prompt_versions/${encodeURIComponent(v)}/tags`, { name: 'prod' });
  await httpSpec(server)
    .given()
    .when('DELETE', '/v1/prompts/doomed')
    .then({
      status: 204,
      events: (events) =>
        assert.equal(
          events.map((e) => e.type),
          ['PromptDeleted'],
        ),
    });
  assert.is((await callJson(server, 'GET', '/v1/prompts/doomed/latest')).status, 404);
  assert.is((await callJson(server, 'GET', `/v1/prompt_versions/${encodeURIComponent(v)}`)).status, 404);
  assert.is((await callJson(server, 'GET', `/v1/prompt_versions/${encodeURIComponent(v)}/tags`)).status, 404);
  assert.is((await callJson(server, 'DELETE', '/v1/prompts/doomed')).status, 404);
  const again = await create(server, 'doomed', chat('y'));
  assert.is(again.status, 200);
  assert.is.not(again.body.data.id, v);
  assert.is((await callJson(server, 'GET', '/v1/prompts/doomed/tags/prod')).status, 404, 'the new prompt has none of the old tags');
  assert.is((await callJson(server, 'GET', '/v1/prompts/doomed/versions')).body.data.length, 1);
});

const refused = async (server: TestServer, method: string, path: string, body: unknown, status: number, detail: RegExp) => {
  const out = await httpSpec(server).given().when(method, path, { body }).then({ status, events: [] });
  const b = out.body as { detail: string; code: string };
  assert.match(b.detail, detail, JSON.stringify(b));
  assert.type(b.code, 'string');
};

test('bad input is a 4xx naming what is wrong, never a 500, and appends nothing', async ({ server }) => {
  const v = (await create(server, 'valid', chat('x'))).body.data.id;
  await refused(server, 'POST', '/v1/prompts', { prompt: { name: 'Bad Name' }, version: chat('x') }, 422, /body\.prompt\.name: must match/);
  await refused(server, 'POST', '/v1/prompts', { prompt: { name: '-x' }, version: chat('x') }, 422, /body\.prompt\.name/);
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('x', { model_provider: 'ACME' }) },
    422,
    /body\.version\.model_provider: unknown model provider/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('Hello {{name') },
    422,
    /body\.version\.template\.messages\.0\.content: MUSTACHE template: "\{\{" at character 6 is never closed/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('{{#items}}x', {}) },
    422,
    /section "\{\{#items\}\}" at character 0 is never closed/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('Hi {name', { template_format: 'F_STRING' }) },
    422,
    /F_STRING template: "\{" at character 3 is never closed/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('a } b', { template_format: 'F_STRING' }) },
    422,
    /single "\}" at character 2/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('{"a": 1}', { template_format: 'F_STRING' }) },
    422,
    /is not a variable name/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('x', { model_provider: 'ANTHROPIC' }) },
    422,
    /body\.version\.invocation_parameters\.type: "openai" parameters do not fit model provider ANTHROPIC/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('x', { invocation_parameters: { type: 'openai', openai: { temp: 1 } } }) },
    422,
    /body\.version\.invocation_parameters\.openai/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('x', { invocation_parameters: { type: 'acme', acme: {} } }) },
    422,
    /body\.version\.invocation_parameters.*must be one of/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('x', { template_type: 'STR', template: { type: 'string', template: 'x' } }) },
    422,
    /only CHAT templates/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1' }, version: chat('nul \u0000 here') },
    422,
    /body\.version\.template\.messages\.0\.content: must not contain NUL/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1', metadata: { k: 'a\u0000' } }, version: chat('x') },
    422,
    /body\.prompt\.metadata\.k: must not contain NUL/,
  );
  await refused(
    server,
    'POST',
    '/v1/prompts',
    { prompt: { name: 'p1', description: '\ud800' }, version: chat('x') },
    422,
    /body\.prompt\.description/,
  );
  await refused(server, 'GET', '/v1/prompts/Not%20A%20Name/latest', undefined, 422, /path\.prompt_identifier/);
  await refused(server, 'GET', '/v1/prompts/nobody/latest', undefined, 404, /not found/);
  await refused(server, 'GET', '/v1/prompts/valid/tags/BAD', undefined, 422, /path\.tag_name/);
  await refused(server, 'GET', '/v1/prompt_versions/123', undefined, 422, /path\.prompt_version_id/);
  await refused(
    server,
    'GET',
    `/v1/prompt_versions/${encodeURIComponent(Buffer.from('PromptVersion:999999').toString('base64'))}`,
    undefined,
    404,
    /not found/,
  );
  await refused(server, 'POST', `/v1/prompt_versions/${encodeURIComponent(v)}/tags`, { name: 'Prod!' }, 422, /body\.name: must match/);
  await refused(server, 'DELETE', `/v1/prompt_versions/${encodeURIComponent(v)}/tags/Prod!`, undefined, 422, /path\.tag_name/);
  await refused(server, 'GET', '/v1/prompts?cursor=nonsense', undefined, 422, /query\.cursor/);
  await refused(server, 'GET', '/v1/prompts?limit=0', undefined, 422, /query\.limit/);
  assert.is((await callJson(server, 'GET', '/v1/prompts/p1/latest')).status, 404, 'nothing was stored');
});

test('GraphQL reads what REST wrote: prompts by name and label, versions with variables, tags, labels', async ({ server }) => {
  const v1 = (await create(server, 'gql-prompt', chat('Hi {{name}}, about {{topic}}'), { metadata: { k: 1 } })).body.data.id;
  const v2 = (await create(server, 'gql-prompt', chat('Bye {name}', { template_format: 'F_STRING' }))).body.data.id;
  await callJson(server, 'POST', `/v1/prompt_versions/${encodeURIComponent(v1)}/tags`, { name: 'production' });
  const context = { actor: 'test', requestId: null };
  await changePromptLabels(
    server.store,
    { type: 'CreatePromptLabel', label: { name: 'gql-label', color: '#112233', description: null } },
    context,
  );
  const promptUuid = (await findPrompt(server.pool, { name: 'gql-prompt' }))!.prompt_id;
  const labelled = await setPromptLabels(server.store, { name: 'gql-prompt', promptId: promptUuid }, [1], context);
  await server.runner.waitFor(labelled.position!);

  const labelId = Buffer.from('PromptLabel:1').toString('base64');
  const data = dataOf(
    await gql(
      server,
      `query($labels: [ID!]) {
        prompts(first: 10, nameContains: "GQL", labelIds: $labels) { edges { node {
          name metadata versionCount labels { name color }
          versionTags { name promptVersionId }
          latest: version { id templateFormat templateVariables isLatest sequenceNumber previousVersion { id } }
          tagged: version(tagName: "production") { id templateVariables isLatest tags { name } }
          promptVersions(first: 1) { edges { node { id } } pageInfo { hasNextPage } }
        } } }
        promptLabels { name }
      }`,
      { labels: [labelId] },
    ),
  );
  assert.equal(data.prompts.edges.length, 1);
  const p = data.prompts.edges[0].node;
  assert.equal(
    { name: p.name, metadata: p.metadata, versionCount: p.versionCount, labels: p.labels, versionTags: p.versionTags },
    {
      name: 'gql-prompt',
      metadata: { k: 1 },
      versionCount: 2,
      labels: [{ name: 'gql-label', color: '#112233' }],
      versionTags: [{ name: 'production', promptVersionId: v1 }],
    },
  );
  assert.equal(p.latest, {
    id: v2,
    templateFormat: 'F_STRING',
    templateVariables: ['name'],
    isLatest: true,
    sequenceNumber: 2,
    previousVersion: { id: v1 },
  });
  assert.equal(p.tagged, { id: v1, templateVariables: ['name', 'topic'], isLatest: false, tags: [{ name: 'production' }] });
  assert.equal(p.promptVersions, { edges: [{ node: { id: v2 } }], pageInfo: { hasNextPage: true } });
  assert.ok(data.promptLabels.some((l: { name: string }) => l.name === 'gql-label'));
});

test.run();
