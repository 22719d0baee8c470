import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PromptEvent, PromptLabelEvent } from '../../../domain/prompts/events.ts';
import { promptDecider } from '../../../domain/prompts/promptDecider.ts';
import { promptLabelDecider } from '../../../domain/prompts/promptLabelDecider.ts';
import { invocationParametersForWrite, promptVersionVariables, type PromptVersionData } from '../../../domain/prompts/promptVersion.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(promptDecider);
const P = '11111111-1111-4111-8111-111111111111';
const P2 = '22222222-2222-4222-8222-222222222222';
const V1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const V2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

const version = (content = 'Hello {{name}}', over: Partial<PromptVersionData> = {}): PromptVersionData => ({
  description: null,
  modelProvider: 'OPENAI',
  modelName: 'gpt-4o',
  templateType: 'CHAT',
  templateFormat: 'MUSTACHE',
  template: { type: 'chat', messages: [{ role: 'user', content }] },
  invocationParameters: { type: 'openai', openai: {} },
  tools: null,
  responseFormat: null,
  ...over,
});
const created = (promptId = P, name = 'greeter'): PromptEvent => ({
  type: 'PromptCreated',
  data: { promptId, name, description: null, metadata: {}, sourcePromptId: null },
});
const added = (versionId: string, promptId = P): PromptEvent => ({
  type: 'PromptVersionAdded',
  data: { promptId, versionId, version: version() },
});
const add = (over: Partial<{ promptId: string; versionId: string; version: PromptVersionData; name: string }> = {}) => ({
  type: 'AddPromptVersion' as const,
  name: 'greeter',
  promptId: P,
  description: null,
  metadata: {},
  sourcePromptId: null,
  versionId: V1,
  version: version(),
  ...over,
});

test('given nothing, when a version is added, then the prompt is created with it', () =>
  spec
    .given([])
    .when(add())
    .then([created(), added(V1)]));

test('given a prompt, when a version is added, then only the version, on the existing incarnation', () =>
  spec
    .given([created(), added(V1)])
    .when(add({ promptId: P2, versionId: V2 }))
    .then([added(V2)]));

test('given a deleted prompt, when its name gets a version, then a new incarnation is created', () =>
  spec
    .given([created(), added(V1), { type: 'PromptDeleted', data: { promptId: P, name: 'greeter' } }])
    .when(add({ promptId: P2, versionId: V2 }))
    .then([created(P2), added(V2, P2)]));

test('names follow the identifier rule; versions keep the template, provider and text rules', () => {
  spec
    .given([])
    .when(add({ name: 'Greeter' }))
    .thenThrows('invalid_prompt_name');
  spec
    .given([])
    .when(add({ version: version('Hi {{name') }))
    .thenThrows('invalid_prompt_version');
  spec
    .given([])
    .when(add({ version: version('x', { modelProvider: 'ACME' as PromptVersionData['modelProvider'] }) }))
    .thenThrows('invalid_prompt_version');
  spec
    .given([])
    .when(add({ version: version('x', { modelProvider: 'GOOGLE' }) }))
    .thenThrows('invalid_prompt_version');
  spec
    .given([])
    .when(add({ version: version('x', { templateType: 'STR' }) }))
    .thenThrows('invalid_prompt_version');
  spec
    .given([])
    .when(add({ version: version('a\u0000b') }))
    .thenThrows('invalid_prompt_version');
  // A string template in F_STRING format is a valid version (REST accepts CHAT only; the domain both).
  spec
    .given([])
    .when(
      add({
        version: version('x', { templateType: 'STR', templateFormat: 'F_STRING', template: { type: 'string', template: 'Hi {name}' } }),
      }),
    )
    .thenMatches((events) => assert.is(events.length, 2));
});

test('a tag names a version of its own prompt: set, moved, unchanged, removed', () => {
  const history = [created(), added(V1), added(V2)];
  const tag = (versionId: string, description: string | null = null) => ({
    type: 'SetPromptTag' as const,
    promptId: P,
    versionId,
    name: 'production',
    description,
  });
  const set = (versionId: string): PromptEvent => ({
    type: 'PromptTagSet',
    data: { promptId: P, name: 'production', versionId, description: null },
  });
  spec
    .given(history)
    .when(tag(V1))
    .then([set(V1)]);
  spec
    .given([...history, set(V1)])
    .when(tag(V2))
    .then([set(V2)]);
  spec
    .given([...history, set(V1)])
    .when(tag(V1))
    .then([]);
  spec
    .given(history)
    .when({ ...tag(V1), name: 'Prod' })
    .thenThrows('invalid_tag_name');
  spec
    .given([...history, set(V1)])
    .when({ type: 'RemovePromptTag', promptId: P, name: 'production' })
    .then([{ type: 'PromptTagRemoved', data: { promptId: P, name: 'production' } }]);
  spec.given(history).when({ type: 'RemovePromptTag', promptId: P, name: 'production' }).thenThrows('prompt_tag_not_found');
});

test('a tag on a version of another prompt is refused as not found', () =>
  spec
    .given([created(P2, 'greeter'), added(V2, P2)])
    .when({ type: 'SetPromptTag', promptId: P2, versionId: V1, name: 'production', description: null })
    .thenThrows('prompt_version_not_found'));

test('commands for another incarnation (deleted, re-created) are "not found"', () => {
  spec
    .given([created(), added(V1)])
    .when({ type: 'DeletePrompt', promptId: P2 })
    .thenThrows('prompt_not_found');
  spec
    .given([created(), { type: 'PromptDeleted', data: { promptId: P, name: 'greeter' } }])
    .when({ type: 'UpdatePrompt', promptId: P, description: 'x' })
    .thenThrows('prompt_not_found');
});

test('updates carry only what changed; metadata is replaced whole and must be storable', () => {
  spec
    .given([created(), added(V1)])
    .when({ type: 'UpdatePrompt', promptId: P, description: null, metadata: { team: 'ai' } })
    .then([{ type: 'PromptUpdated', data: { promptId: P, metadata: { team: 'ai' } } }]);
  spec
    .given([created(), added(V1)])
    .when({ type: 'UpdatePrompt', promptId: P, metadata: {} })
    .then([]);
  spec
    .given([created(), added(V1)])
    .when({ type: 'UpdatePrompt', promptId: P, metadata: { k: '\ud800' } })
    .thenThrows('invalid_metadata');
});

test('labels: a set of label ids, deduplicated; the same set again is no change', () => {
  spec
    .given([created(), added(V1)])
    .when({ type: 'SetPromptLabels', promptId: P, labelIds: [2, 1, 2] })
    .then([{ type: 'PromptLabelsSet', data: { promptId: P, labelIds: [1, 2] } }]);
  spec
    .given([created(), added(V1), { type: 'PromptLabelsSet', data: { promptId: P, labelIds: [1, 2] } }])
    .when({ type: 'SetPromptLabels', promptId: P, labelIds: [2, 1] })
    .then([]);
});

test('prompt labels: ids in order, unique identifier names, hex colours', () => {
  const labels = deciderSpec(promptLabelDecider);
  const label = { name: 'chatbot', color: '#33aa55', description: null };
  const createdLabel = (labelId: number, l = label): PromptLabelEvent => ({ type: 'PromptLabelCreated', data: { labelId, label: l } });
  labels
    .given([createdLabel(1), { type: 'PromptLabelDeleted', data: { labelId: 1 } }])
    .when({ type: 'CreatePromptLabel', label: { ...label, name: 'other' } })
    .then([createdLabel(2, { ...label, name: 'other' })]);
  labels
    .given([createdLabel(1)])
    .when({ type: 'CreatePromptLabel', label })
    .thenThrows('prompt_label_exists');
  labels
    .given([])
    .when({ type: 'CreatePromptLabel', label: { ...label, name: 'Chat Bot' } })
    .thenThrows('invalid_prompt_label');
  labels
    .given([])
    .when({ type: 'CreatePromptLabel', label: { ...label, color: 'green' } })
    .thenThrows('invalid_prompt_label');
  labels.given([]).when({ type: 'DeletePromptLabel', labelId: 9 }).thenThrows('prompt_label_not_found');
});

test('OpenAI-compatible parameters are written as "openai"; the others stay as they are', () => {
  assert.equal(invocationParametersForWrite({ type: 'deepseek', deepseek: { seed: 1 } }), { type: 'openai', openai: { seed: 1 } });
  assert.equal(invocationParametersForWrite({ type: 'anthropic', anthropic: { max_tokens: 9 } }), {
    type: 'anthropic',
    anthropic: { max_tokens: 9 },
  });
});

test('a version lists the variables of every message in order of first use', () => {
  assert.equal(
    promptVersionVariables(
      version('x', {
        template: {
          type: 'chat',
          messages: [
            { role: 'system', content: 'You help {{ user.name }} with {{topic}}' },
            { role: 'user', content: [{ type: 'text', text: '{{topic}} and {{#items}}{{title}}{{/items}}' }] },
          ],
        },
      }),
    ),
    ['user', 'topic', 'items'],
  );
});

test.run();
