import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { PROMPT_LABELS_STREAM, promptStream } from '../../../domain/prompts/promptStream.ts';
import {
  findPrompt,
  findPromptVersion,
  latestPromptVersion,
  listPromptLabels,
  listPrompts,
  listPromptTags,
  listPromptVersions,
  promptVersionByTag,
} from '../../../projections/prompts/promptQueries.ts';
import { promptsProjection } from '../../../projections/prompts/promptsProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const P = '11111111-1111-4111-8111-111111111111';
const P2 = '22222222-2222-4222-8222-222222222222';
const V1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const V2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const V3 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';

const version = (content: string) => ({
  description: null,
  modelProvider: 'OPENAI',
  modelName: 'gpt-4o',
  templateType: 'CHAT',
  templateFormat: 'MUSTACHE',
  template: { type: 'chat', messages: [{ role: 'user', content }] },
  invocationParameters: { type: 'openai', openai: { temperature: 0.1 } },
  tools: null,
  responseFormat: null,
});
const created = (promptId: string, name: string, metadata: unknown = {}): DomainEvent => ({
  type: 'PromptCreated',
  data: { promptId, name, description: `about ${name}`, metadata, sourcePromptId: null },
});
const added = (promptId: string, versionId: string, content: string): DomainEvent => ({
  type: 'PromptVersionAdded',
  data: { promptId, versionId, version: version(content) },
});
const tagSet = (promptId: string, name: string, versionId: string): DomainEvent => ({
  type: 'PromptTagSet',
  data: { promptId, name, versionId, description: null },
});
const greeter = (...events: DomainEvent[]) => inStream(promptStream('greeter'), ...events);
const labels = (...events: DomainEvent[]) => inStream(PROMPT_LABELS_STREAM, ...events);
const contents = (rows: readonly { template: unknown }[]) =>
  rows.map((r) => (r.template as { messages: { content: string }[] }).messages[0]!.content);

test('given a prompt with versions, then they list newest first with ids in log order, and latest is the last', () =>
  projectionSpec(promptsProjection)
    .given(greeter(created(P, 'greeter'), added(P, V1, 'one'), added(P, V2, 'two')))
    .then(
      async (db) => ({
        prompt: (await findPrompt(db, { name: 'greeter' }))!.id,
        versions: (await listPromptVersions(db, { promptId: P, cursor: null, limit: 10 })).map((v) => [v.id, v.prompt_name]),
        latest: contents([(await latestPromptVersion(db, P))!]),
      }),
      {
        prompt: 1,
        versions: [
          [2, 'greeter'],
          [1, 'greeter'],
        ],
        latest: ['two'],
      },
    ));

test('given a tag set and moved, then it names the version it was moved to and keeps its id', () =>
  projectionSpec(promptsProjection)
    .given(greeter(created(P, 'greeter'), added(P, V1, 'one'), added(P, V2, 'two'), tagSet(P, 'prod', V1), tagSet(P, 'prod', V2)))
    .then(
      async (db) => ({
        tags: (await listPromptTags(db, P)).map((t) => [t.id, t.name, t.version_id]),
        byTag: contents([(await promptVersionByTag(db, P, 'prod'))!]),
      }),
      { tags: [[1, 'prod', V2]], byTag: ['two'] },
    ));

test('given a tag naming a version of another prompt (a crafted event), then no tag is stored', () =>
  projectionSpec(promptsProjection)
    .given(
      greeter(created(P, 'greeter'), added(P, V1, 'one')),
      inStream(promptStream('other'), created(P2, 'other'), added(P2, V2, 'x'), tagSet(P2, 'prod', V1)),
    )
    .then((db) => listPromptTags(db, P2), []));

test('given a deleted prompt, then its versions, tags and label links are gone and its name can be used again', () =>
  projectionSpec(promptsProjection)
    .given(
      labels({ type: 'PromptLabelCreated', data: { labelId: 1, label: { name: 'bot', color: null, description: null } } }),
      greeter(
        created(P, 'greeter'),
        added(P, V1, 'one'),
        tagSet(P, 'prod', V1),
        { type: 'PromptLabelsSet', data: { promptId: P, labelIds: [1] } },
        { type: 'PromptDeleted', data: { promptId: P, name: 'greeter' } },
        created(P2, 'greeter'),
        added(P2, V2, 'again'),
      ),
    )
    .then(
      async (db) => ({
        prompts: (await listPrompts(db, { cursor: null, limit: 10 })).map((p) => [p.id, p.prompt_id]),
        oldVersion: await findPromptVersion(db, { versionId: V1 }),
        oldTags: await listPromptTags(db, P),
        oldLabels: await listPromptLabels(db, P),
        labels: (await listPromptLabels(db)).map((l) => l.name),
      }),
      { prompts: [[2, P2]], oldVersion: null, oldTags: [], oldLabels: [], labels: ['bot'] },
    ));

test('given labels set on a prompt and one label deleted, then the prompt carries the others only', () =>
  projectionSpec(promptsProjection)
    .given(
      labels(
        { type: 'PromptLabelCreated', data: { labelId: 1, label: { name: 'bot', color: '#112233', description: null } } },
        { type: 'PromptLabelCreated', data: { labelId: 2, label: { name: 'prod', color: null, description: 'live' } } },
      ),
      greeter(created(P, 'greeter'), added(P, V1, 'one'), { type: 'PromptLabelsSet', data: { promptId: P, labelIds: [1, 2, 7] } }),
      labels({ type: 'PromptLabelDeleted', data: { labelId: 1 } }),
    )
    .then(async (db) => (await listPromptLabels(db, P)).map((l) => [l.id, l.name, l.description]), [[2, 'prod', 'live']]));

test('given metadata patched, then it is replaced whole; given crafted unstorable text, then the rows hold it made storable', () =>
  projectionSpec(promptsProjection)
    .given(
      greeter(
        created(P, 'greeter', { a: 1 }),
        { type: 'PromptUpdated', data: { promptId: P, metadata: { b: 'x\u0000y' } } },
        {
          type: 'PromptVersionAdded',
          data: {
            promptId: P,
            versionId: V3,
            version: { ...version('nul \u0000 and \ud800'), modelProvider: 'ACME', invocationParameters: 'junk' },
          },
        },
      ),
    )
    .thenMatches(
      async (db) => ({ prompt: await findPrompt(db, { promptId: P }), version: await findPromptVersion(db, { versionId: V3 }) }),
      ({ prompt, version: v }) => {
        assert.equal(prompt?.metadata, { b: 'x\ufffdy' });
        assert.equal(contents([v!]), ['nul \ufffd and \ufffd']);
        assert.is(v!.model_provider, 'OPENAI');
        assert.equal(v!.invocation_parameters, { type: 'openai', openai: {} });
      },
    ));

test.run();
