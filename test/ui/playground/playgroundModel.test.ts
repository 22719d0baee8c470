import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  draftFromSpan,
  draftFromVersion,
  draftMessages,
  draftRequest,
  emptyDraft,
  wireMessages,
} from '../../../ui/src/lib/playground/playgroundDraft.ts';
import { inputPaths, mappingFor } from '../../../ui/src/lib/playground/datasetMapping.ts';
import { createSseParser } from '../../../ui/src/lib/playground/sseEvents.ts';
import { templateVariables } from '../../../ui/src/lib/playground/templateVariables.ts';
import { inputMessages } from '../../../ui/src/lib/tracing/openInference.ts';

/**
 * The playground page's pure parts, without a browser: reading the streamed events, offering
 * inputs for a template's variables, the settings sent, and what an LLM span loads.
 */

const test = suite('playground UI model');

test('events split across chunks arrive whole, one per blank line', () => {
  const got: string[] = [];
  const parser = createSseParser((data) => got.push(data));
  parser.push('data: {"type":"delta","te');
  assert.equal(got, []);
  parser.push('xt":"Hel"}\n\ndata: {"type":"delta","text":"lo"}\r\n\r\ndata: {"type":"done"');
  assert.equal(got, ['{"type":"delta","text":"Hel"}', '{"type":"delta","text":"lo"}']);
  parser.push('}');
  parser.end();
  assert.equal(got.at(-1), '{"type":"done"}');
});

test('variables are found per template format, in order of first use', () => {
  assert.equal(templateVariables('MUSTACHE', ['Hi {{ name }}, {{#items}}{{.}}{{/items}} {{!note}}', '{{name}} {{city}}']), [
    'name',
    'items',
    'city',
  ]);
  assert.equal(templateVariables('F_STRING', ['{greeting}, {name!r} {{literal}} {n:>3}']), ['greeting', 'name', 'n']);
  assert.equal(templateVariables('NONE', ['{{name}} {x}']), []);
});

test('temperature, max tokens and other parameters combine; bad JSON names its field', () => {
  const ok = draftRequest({ ...emptyDraft(), temperature: '0.2', maxTokens: '64', otherParameters: '{"top_p": 0.5}', tools: '' });
  assert.equal(ok, {
    ok: true,
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: '{{question}}' },
    ],
    parameters: { top_p: 0.5, temperature: 0.2, max_tokens: 64 },
    tools: [],
  });
  assert.equal(draftRequest({ ...emptyDraft(), otherParameters: '[1]' }), {
    ok: false,
    problem: 'Other parameters: must be a JSON object, e.g. {"top_p": 0.9}',
  });
  assert.equal(draftRequest({ ...emptyDraft(), temperature: 'warm' }), { ok: false, problem: 'Temperature: not a number' });
  assert.equal(draftRequest({ ...emptyDraft(), tools: '{"a": 1}' }), {
    ok: false,
    problem: 'Tools: must be a JSON array of tool definitions',
  });
});

test('an LLM span loads its messages verbatim, model, provider and parameters without the ones the playground sets', () => {
  const attributes = {
    llm: {
      model_name: 'llama3',
      provider: 'ollama',
      invocation_parameters: '{"temperature": 0.7, "max_completion_tokens": 100, "stream": true, "seed": 3}',
      input_messages: [
        { message: { role: 'developer', content: 'Be {{brief}}' } },
        { message: { role: 'user', contents: [{ message_content: { type: 'text', text: 'Hi' } }] } },
        {
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ tool_call: { id: 'call_7', function: { name: 'lookup', arguments: '{"q":1}' } } }],
          },
        },
        { message: { role: 'tool', content: '{"ok": true}', tool_call_id: 'call_7' } },
        { message: { role: 'function', content: 'legacy' } },
      ],
    },
  };
  const draft = draftFromSpan(attributes, inputMessages(attributes));
  assert.equal(draft.messages, [
    { role: 'system', content: 'Be {{brief}}' },
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: '', toolCalls: JSON.stringify([{ id: 'call_7', name: 'lookup', arguments: '{"q":1}' }], null, 2) },
    { role: 'tool', content: '{"ok": true}', toolCallId: 'call_7' },
  ]);
  assert.is(draft.templateFormat, 'NONE');
  assert.is(draft.provider, 'OLLAMA');
  assert.is(draft.modelName, 'llama3');
  assert.is(draft.temperature, '0.7');
  assert.is(draft.maxTokens, '100');
  assert.equal(JSON.parse(draft.otherParameters), { seed: 3 });
});

test('a tool result recorded without its call id answers the oldest call not yet answered; calls without ids get unique ones', () => {
  const attributes = {
    llm: {
      input_messages: [
        { message: { role: 'user', content: 'Weather in Paris and Rome?' } },
        {
          message: {
            role: 'assistant',
            tool_calls: [
              { tool_call: { function: { name: 'weather', arguments: '{"city":"Paris"}' } } },
              { tool_call: { id: 'call_1', function: { name: 'weather', arguments: '{"city":"Rome"}' } } },
            ],
          },
        },
        { message: { role: 'tool', content: '21' } },
        { message: { role: 'tool', content: '25' } },
        { message: { role: 'assistant', tool_calls: [{ tool_call: { function: { name: 'weather', arguments: '{"city":"Oslo"}' } } }] } },
        { message: { role: 'tool', content: '3' } },
      ],
    },
  };
  const messages = draftFromSpan(attributes, inputMessages(attributes)).messages;
  const ids = (i: number) => JSON.parse(messages[i]!.toolCalls!).map((c: { id: string }) => c.id);
  // call_1 is taken by the span itself, so the minted ids skip it
  assert.equal(ids(1), ['call_2', 'call_1']);
  assert.equal([messages[2]!.toolCallId, messages[3]!.toolCallId], ['call_2', 'call_1']);
  assert.equal(ids(4), ['call_3']);
  assert.is(messages[5]!.toolCallId, 'call_3');
});

test('tool calls and tool results go out as content parts, and come back into the editor the same', () => {
  const draft = [
    { role: 'user' as const, content: 'Weather in {{city}}?' },
    { role: 'assistant' as const, content: '', toolCalls: '[{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]' },
    { role: 'tool' as const, content: '{"temp": 21}', toolCallId: 'call_1' },
  ];
  const wire = wireMessages(draft);
  assert.equal(wire, {
    messages: [
      { role: 'user', content: 'Weather in {{city}}?' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_call',
            tool_call_id: 'call_1',
            tool_call: { type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'call_1', tool_result: '{"temp": 21}' }] },
    ],
  });
  const back = draftMessages((wire as { messages: never[] }).messages);
  assert.equal(back[2], { role: 'tool', content: '{"temp": 21}', toolCallId: 'call_1' });
  assert.equal(JSON.parse(back[1]!.toolCalls!), [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
  assert.equal(wireMessages([{ role: 'tool', content: 'x', toolCallId: ' ' }]), {
    problem: 'Message 1: a tool message needs the id of the tool call it answers',
  });
  assert.equal(wireMessages([{ role: 'assistant', content: '', toolCalls: '[{"name": "x"}]' }]), {
    problem: 'Message 1: tool calls must be a JSON array of {"id", "name", "arguments"}',
  });
});

test("a dataset's input keys are offered for mapping; a variable named like a key takes it unless chosen otherwise", () => {
  const paths = inputPaths([{ question: 'a', meta: { lang: 'fr' } }, { extra: 1 }, 'not an object']);
  assert.equal(paths, ['question', 'meta', 'meta.lang', 'extra']);
  const choice = { datasetId: 'd', versionId: 'v', paths, mapping: { lang: 'meta.lang', question: '' }, exampleCount: 2 };
  assert.equal(mappingFor(choice, ['question', 'lang', 'extra', 'tone']), {
    question: null,
    lang: 'meta.lang',
    extra: 'extra',
    tone: null,
  });
});

test('a stored version opens with its messages, format, model, parameters split into their fields, and tools', () => {
  const draft = draftFromVersion('agent', {
    sequenceNumber: 3,
    modelProvider: 'GOOGLE',
    modelName: 'gemini-x',
    templateFormat: 'F_STRING',
    template: {
      type: 'chat',
      messages: [
        { role: 'developer', content: 'Be {tone}' },
        { role: 'ai', content: [{ type: 'text', text: 'ok' }] },
      ],
    },
    invocationParameters: { type: 'google', google: { temperature: 0.1, max_tokens: 9, top_k: 3 } },
    tools: { type: 'tools', tools: [{ type: 'function', function: { name: 'f' } }] },
  });
  assert.equal(draft.messages, [
    { role: 'system', content: 'Be {tone}' },
    { role: 'assistant', content: 'ok' },
  ]);
  assert.equal(
    [draft.templateFormat, draft.provider, draft.modelName, draft.temperature, draft.maxTokens],
    ['F_STRING', 'OPENAI', 'gemini-x', '0.1', '9'],
  );
  assert.equal(JSON.parse(draft.otherParameters), { top_k: 3 });
  assert.equal(JSON.parse(draft.tools), [{ type: 'function', function: { name: 'f' } }]);
  assert.equal(draft.openedFrom, { prompt: 'agent', version: 3 });
  const text = draftFromVersion('s', {
    ...{ sequenceNumber: 1, modelProvider: 'ANTHROPIC', modelName: 'c', templateFormat: 'MUSTACHE', invocationParameters: {}, tools: null },
    template: { type: 'string', template: 'Hi {{x}}' },
  });
  assert.equal(text.messages, [{ role: 'user', content: 'Hi {{x}}' }]);
  assert.is(text.provider, 'ANTHROPIC');
});

test.run();
