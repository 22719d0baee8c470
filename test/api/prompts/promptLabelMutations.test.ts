import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, type Credentials, login } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from '../graphql/gqlClient.ts';

/**
 * Prompt labels through GraphQL, with the reference's mutation names: the vocabulary (create,
 * patch, delete) and which prompts carry them (set adds, unset takes off); members write, viewers
 * read. And `node(id:)` finds prompts, versions, tags and labels by the ids REST answers with.
 */

type Ctx = { server: TestServer; admin: Credentials; viewer: Credentials; promptId: string; versionId: string };
const test = suite<Ctx>('prompt labels and prompt nodes over GraphQL', {} as Ctx);

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.admin, { email: 'vi@example.com', username: 'vi', role: 'VIEWER', password: 'vi-pw' });
  ctx.viewer = await login(ctx.server, 'vi@example.com', 'vi-pw');
  const created = await callAs(ctx.server, 'POST', '/v1/prompts', {
    as: ctx.admin,
    json: {
      prompt: { name: 'labelled' },
      version: {
        model_provider: 'OPENAI',
        model_name: 'gpt-4o-mini',
        template: { type: 'chat', messages: [{ role: 'user', content: 'Hi {{name}}' }] },
        template_type: 'CHAT',
        template_format: 'MUSTACHE',
        invocation_parameters: { type: 'openai', openai: {} },
      },
    },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  ctx.versionId = created.body.data.id;
  const prompt = dataOf(await gql(ctx.server, '{ getPromptByName(name: "labelled") { id } }', {}, ctx.admin));
  ctx.promptId = prompt.getPromptByName.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const CREATE = `mutation($input: CreatePromptLabelInput!) { createPromptLabel(input: $input) { promptLabels { id name color description usageCount } } }`;
const SET = `mutation($input: SetPromptLabelsInput!) { setPromptLabels(input: $input) { prompt { name labels { name } } } }`;
const UNSET = `mutation($input: UnsetPromptLabelsInput!) { unsetPromptLabels(input: $input) { prompt { labels { name } } } }`;

test('given labels, when set on a prompt, then it carries them (added to what it had), and unset takes only those off', async (ctx) => {
  const make = async (name: string, color: string) =>
    dataOf(await gql(ctx.server, CREATE, { input: { name, color, description: `${name} prompts` } }, ctx.admin)).createPromptLabel
      .promptLabels[0];
  const prod = await make('production', '#1c76fc');
  const draft = await make('draft', '#aa3300');
  assert.equal(
    { ...prod, id: undefined },
    { id: undefined, name: 'production', color: '#1c76fc', description: 'production prompts', usageCount: 0 },
  );

  dataOf(await gql(ctx.server, SET, { input: { promptId: ctx.promptId, promptLabelIds: [prod.id] } }, ctx.admin));
  const set = dataOf(await gql(ctx.server, SET, { input: { promptId: ctx.promptId, promptLabelIds: [draft.id, prod.id] } }, ctx.admin));
  assert.equal(set.setPromptLabels.prompt.labels.map((l: { name: string }) => l.name).sort(), ['draft', 'production']);
  const usage = dataOf(await gql(ctx.server, '{ promptLabels { name usageCount } }', {}, ctx.viewer));
  assert.equal(usage.promptLabels.find((l: { name: string }) => l.name === 'production').usageCount, 1);

  const unset = dataOf(await gql(ctx.server, UNSET, { input: { promptId: ctx.promptId, promptLabelIds: [draft.id] } }, ctx.admin));
  assert.equal(unset.unsetPromptLabels.prompt.labels, [{ name: 'production' }]);
});

test('given a label, when patched then deleted, then its new name shows and deleting takes it off every prompt', async (ctx) => {
  const label = dataOf(await gql(ctx.server, CREATE, { input: { name: 'temp', color: '#00cc88' } }, ctx.admin)).createPromptLabel
    .promptLabels[0];
  dataOf(await gql(ctx.server, SET, { input: { promptId: ctx.promptId, promptLabelIds: [label.id] } }, ctx.admin));
  const patched = dataOf(
    await gql(
      ctx.server,
      `mutation($input: PatchPromptLabelInput!) { patchPromptLabel(input: $input) { promptLabels { id name color description } } }`,
      { input: { promptLabelId: label.id, name: 'temporary', description: 'short-lived' } },
      ctx.admin,
    ),
  );
  assert.equal(patched.patchPromptLabel.promptLabels, [{ id: label.id, name: 'temporary', color: '#00cc88', description: 'short-lived' }]);
  const deleted = dataOf(
    await gql(
      ctx.server,
      `mutation($input: DeletePromptLabelsInput!) { deletePromptLabels(input: $input) { deletedPromptLabelIds } }`,
      { input: { promptLabelIds: [label.id] } },
      ctx.admin,
    ),
  );
  assert.equal(deleted.deletePromptLabels.deletedPromptLabelIds, [label.id]);
  const prompt = dataOf(await gql(ctx.server, '{ getPromptByName(name: "labelled") { labels { name } } }', {}, ctx.admin));
  assert.not.ok(prompt.getPromptByName.labels.some((l: { name: string }) => l.name === 'temporary'));
});

test('bad input names what is wrong; viewers may read labels but not change them', async (ctx) => {
  const refused = async (query: string, variables: Record<string, unknown>, code: string, message: RegExp, as = ctx.admin) => {
    const reply = await gql(ctx.server, query, variables, as);
    assert.equal(errorCodes(reply), [code], JSON.stringify(reply.body));
    assert.match(reply.body.errors[0].message, message);
  };
  await refused(CREATE, { input: { name: 'Bad Name', color: '#000000' } }, 'invalid_prompt_label', /name/);
  await refused(CREATE, { input: { name: 'fine', color: 'red' } }, 'invalid_prompt_label', /color/);
  await refused(CREATE, { input: { name: 'production', color: '#000000' } }, 'prompt_label_exists', /already exists/);
  await refused(SET, { input: { promptId: ctx.promptId, promptLabelIds: ['nope'] } }, 'invalid_input', /input\.promptLabelIds\.0/);
  const missing = Buffer.from('PromptLabel:9999').toString('base64');
  await refused(SET, { input: { promptId: ctx.promptId, promptLabelIds: [missing] } }, 'prompt_label_not_found', /no prompt label/);
  await refused(
    SET,
    { input: { promptId: Buffer.from('Prompt:9999').toString('base64'), promptLabelIds: [] } },
    'prompt_not_found',
    /no prompt/,
  );
  await refused(CREATE, { input: { name: 'viewer-made', color: '#000000' } }, 'viewer_forbidden', /Viewers/, ctx.viewer);
});

test('node(id:) finds a prompt, a version, a tag and a label by the ids REST and GraphQL answer with', async (ctx) => {
  const tag = await callAs(ctx.server, 'POST', `/v1/prompt_versions/${encodeURIComponent(ctx.versionId)}/tags`, {
    as: ctx.admin,
    json: { name: 'staging' },
  });
  assert.is(tag.status, 204, JSON.stringify(tag.body));
  const tags = dataOf(await gql(ctx.server, '{ getPromptByName(name: "labelled") { versionTags { id } labels { id } } }', {}, ctx.viewer));
  const tagId = tags.getPromptByName.versionTags[0].id;
  const labelId = tags.getPromptByName.labels[0].id;
  const data = dataOf(
    await gql(
      ctx.server,
      `query($p: ID!, $v: ID!, $t: ID!, $l: ID!) {
        p: node(id: $p) { __typename id ... on Prompt { name } }
        v: node(id: $v) { __typename id ... on PromptVersion { templateVariables modelName } }
        t: node(id: $t) { __typename id ... on PromptVersionTag { name promptVersionId } }
        l: node(id: $l) { __typename id ... on PromptLabel { name } }
      }`,
      { p: ctx.promptId, v: ctx.versionId, t: tagId, l: labelId },
      ctx.viewer,
    ),
  );
  assert.equal(data.p, { __typename: 'Prompt', id: ctx.promptId, name: 'labelled' });
  assert.equal(data.v, { __typename: 'PromptVersion', id: ctx.versionId, templateVariables: ['name'], modelName: 'gpt-4o-mini' });
  assert.equal(data.t, { __typename: 'PromptVersionTag', id: tagId, name: 'staging', promptVersionId: ctx.versionId });
  assert.equal(data.l, { __typename: 'PromptLabel', id: labelId, name: 'production' });
  const unknown = await gql(ctx.server, '{ node(id: "UHJvbXB0Ojk5OTk=") { id } }', {}, ctx.viewer);
  assert.equal(errorCodes(unknown), ['node_not_found']);
});

test.run();
