import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PromptVersion } from '../../../ui/src/lib/prompts/promptsApi.ts';
import { formFromVersion, inputFromForm } from '../../../ui/src/lib/prompts/versionForm.ts';

/** The prompt version editor's pure parts: a stored version into the form and back, tool parts kept as parts. */
const test = suite('prompt version form');

const version = (messages: PromptVersion['template']): PromptVersion => ({
  id: 'UHJvbXB0VmVyc2lvbjox',
  description: null,
  createdAt: '2026-01-01T00:00:00Z',
  sequenceNumber: 1,
  modelProvider: 'OPENAI',
  modelName: 'gpt-4o-mini',
  invocationParameters: { type: 'openai', openai: { temperature: 0.3 } },
  template: messages,
  templateFormat: 'MUSTACHE',
  templateType: 'CHAT',
  templateVariables: [],
  tools: null,
  responseFormat: null,
  tags: [],
});

test('a tool call and a tool result survive the form: edited as fields, sent back as content parts', () => {
  const messages = [
    { role: 'developer', content: 'Use tools.' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', tool_call_id: 'call_1', tool_call: { type: 'function', name: 'lookup', arguments: '{"q":"x"}' } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'call_1', tool_result: { found: true } }] },
  ];
  const form = formFromVersion(version({ type: 'chat', messages }));
  assert.equal(form.messages[0], { role: 'developer', content: 'Use tools.' });
  assert.is(form.messages[1]!.content, 'Checking.');
  assert.equal(JSON.parse(form.messages[1]!.toolCalls!), [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]);
  assert.equal(form.messages[2], { role: 'tool', content: '{"found":true}', toolCallId: 'call_1' });
  const input = inputFromForm(form);
  assert.equal(input.messages[1], messages[1]);
  assert.equal(input.messages[2], {
    role: 'tool',
    content: [{ type: 'tool_result', tool_call_id: 'call_1', tool_result: '{"found":true}' }],
  });
});

test('a tool message without the id of its call is refused, naming the message', () => {
  const form = formFromVersion(version({ type: 'chat', messages: [{ role: 'user', content: 'x' }] }));
  form.messages.push({ role: 'tool', content: 'result' });
  assert.throws(() => inputFromForm(form), /Message 2: a tool message needs the id of the tool call it answers/);
});

test.run();
