process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { createClient } from '@arizeai/phoenix-client';
import { createPrompt, getPrompt, listPrompts, promptVersion, toSDK } from '@arizeai/phoenix-client/prompts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { changePromptLabels, setPromptLabels } from '../../../domain/prompts/changePromptLabels.ts';
import { findPrompt, listPromptLabels, listPromptTags, listPromptVersions } from '../../../projections/prompts/promptQueries.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; client: ReturnType<typeof createClient> };
const test = suite<Ctx>('@arizeai/phoenix-client prompts against Loupe', {} as Ctx);
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.client = createClient({ options: { baseUrl: ctx.server.baseUrl } });
});
test.after(async (ctx) => {
  await ctx.server.close();
});

// The client logs the errors it turns into `null` (a 404 is one); keep the output readable.
const quietly = async <T>(run: () => Promise<T>): Promise<T> => {
  const [error, warn] = [console.error, console.warn];
  console.error = () => {};
  console.warn = () => {};
  try {
    return await run();
  } finally {
    [console.error, console.warn] = [error, warn];
  }
};

test('createPrompt, tag, getPrompt by name / tag / version id, listPrompts, and the SDK conversions of the result', async ({ client }) => {
  const first = await createPrompt({
    client,
    name: 'support-bot',
    description: 'answers tickets',
    metadata: { team: 'support' },
    version: promptVersion({
      modelProvider: 'OPENAI',
      modelName: 'gpt-4o-mini',
      template: [
        { role: 'system', content: 'You are a {{tone}} assistant.' },
        { role: 'user', content: 'Ticket: {{ ticket }}' },
      ],
      invocationParameters: { temperature: 0.3, max_tokens: 200 },
    }),
  });
  assert.match(Buffer.from(first.id, 'base64').toString(), /^PromptVersion:\d+$/);
  const tagged = await client.POST('/v1/prompt_versions/{prompt_version_id}/tags', {
    params: { path: { prompt_version_id: first.id } },
    body: { name: 'production', description: 'live' },
  });
  assert.is(tagged.response.status, 204);
  const second = await createPrompt({
    client,
    name: 'support-bot',
    version: promptVersion({ modelProvider: 'OPENAI', modelName: 'gpt-4o', template: [{ role: 'user', content: 'v2 {{ticket}}' }] }),
  });

  const latest = await getPrompt({ client, prompt: { name: 'support-bot' } });
  assert.is(latest?.id, second.id);
  const byTag = await getPrompt({ client, prompt: { name: 'support-bot', tag: 'production' } });
  assert.is(byTag?.id, first.id);
  const byVersion = await getPrompt({ client, prompt: { versionId: first.id } });
  assert.equal(byVersion, byTag);
  assert.equal(byTag?.invocation_parameters, { type: 'openai', openai: { temperature: 0.3, max_tokens: 200 } });

  const prompts = await listPrompts({ client });
  const listed = prompts.find((p) => p.name === 'support-bot');
  assert.equal(
    { ...listed, id: 'x' },
    { name: 'support-bot', description: 'answers tickets', source_prompt_id: null, metadata: { team: 'support' }, id: 'x' },
  );

  const variables = { tone: 'friendly', ticket: 'printer is on fire' };
  const openai = toSDK({ sdk: 'openai', prompt: byTag!, variables });
  assert.equal(openai, {
    model: 'gpt-4o-mini',
    temperature: 0.3,
    max_tokens: 200,
    messages: [
      { role: 'system', content: 'You are a friendly assistant.' },
      { role: 'user', content: 'Ticket: printer is on fire' },
    ],
    tools: undefined,
    tool_choice: undefined,
    response_format: undefined,
  });
});

test('an Anthropic prompt with text parts and tools converts for the Anthropic SDK', async ({ client }) => {
  const created = await createPrompt({
    client,
    name: 'claude-helper',
    version: {
      ...promptVersion({
        modelProvider: 'ANTHROPIC',
        modelName: 'claude-3-5-haiku',
        template: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather in {{city}}?' }] },
        ],
        invocationParameters: { max_tokens: 512, temperature: 0 },
      }),
      tools: {
        type: 'tools',
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'by city',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
        ],
        tool_choice: { type: 'zero_or_more' },
      },
    },
  });
  const fetched = await getPrompt({ client, prompt: { versionId: created.id } });
  assert.equal(fetched, created);
  const anthropic = toSDK({ sdk: 'anthropic', prompt: fetched!, variables: { city: 'Oslo' } });
  assert.is(anthropic?.model, 'claude-3-5-haiku');
  assert.is(anthropic?.max_tokens, 512);
  // This client version passes the system message on as a message; the variable is filled in.
  assert.equal(
    JSON.stringify(anthropic?.messages.at(-1)),
    JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }),
  );
  assert.equal(
    (anthropic?.tools as { name?: string }[] | undefined)?.map((t) => t.name),
    ['get_weather'],
  );
  assert.equal(anthropic?.tool_choice, { type: 'auto' });
});

test('deleting a prompt removes its versions, tags and labels; every selector then finds nothing', async ({ client, server }) => {
  const version = await createPrompt({
    client,
    name: 'short-lived',
    version: promptVersion({ modelProvider: 'OPENAI', modelName: 'gpt-4o', template: [{ role: 'user', content: 'hi' }] }),
  });
  await client.POST('/v1/prompt_versions/{prompt_version_id}/tags', {
    params: { path: { prompt_version_id: version.id } },
    body: { name: 'staging' },
  });
  const context = { actor: 'test', requestId: null };
  const label = await changePromptLabels(
    server.store,
    { type: 'CreatePromptLabel', label: { name: 'temp', color: null, description: null } },
    context,
  );
  const prompt = (await findPrompt(server.pool, { name: 'short-lived' }))!;
  const labelled = await setPromptLabels(server.store, { name: prompt.name, promptId: prompt.prompt_id }, [1], context);
  await server.runner.waitFor(labelled.position ?? label.position!);
  assert.equal(
    (await listPromptLabels(server.pool, prompt.prompt_id)).map((l) => l.name),
    ['temp'],
  );

  const deleted = await client.DELETE('/v1/prompts/{prompt_identifier}', { params: { path: { prompt_identifier: 'short-lived' } } });
  assert.is(deleted.response.status, 204);

  await quietly(async () => {
    assert.is(await getPrompt({ client, prompt: { name: 'short-lived' } }), null);
    assert.is(await getPrompt({ client, prompt: { name: 'short-lived', tag: 'staging' } }), null);
    assert.is(await getPrompt({ client, prompt: { versionId: version.id } }), null);
  });
  assert.not.ok((await listPrompts({ client })).some((p) => p.name === 'short-lived'));
  assert.equal(await listPromptVersions(server.pool, { promptId: prompt.prompt_id, cursor: null, limit: 10 }), []);
  assert.equal(await listPromptTags(server.pool, prompt.prompt_id), []);
  assert.equal(await listPromptLabels(server.pool, prompt.prompt_id), []);
  assert.equal(
    (await listPromptLabels(server.pool)).map((l) => l.name),
    ['temp'],
    'the label itself stays for other prompts',
  );
});

test.run();
