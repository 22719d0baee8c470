import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { draftFromSpan, draftRequest, emptyDraft } from '../../ui/src/lib/playground/playgroundDraft.ts';
import { createSseParser } from '../../ui/src/lib/playground/sseEvents.ts';
import { templateVariables } from '../../ui/src/lib/playground/templateVariables.ts';
import { inputMessages } from '../../ui/src/lib/tracing/openInference.ts';

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
  assert.equal(ok, { ok: true, parameters: { top_p: 0.5, temperature: 0.2, max_tokens: 64 }, tools: [] });
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
        { message: { role: 'tool', content: '{"ok": true}' } },
      ],
    },
  };
  const draft = draftFromSpan(attributes, inputMessages(attributes));
  assert.equal(draft.messages, [
    { role: 'system', content: 'Be {{brief}}' },
    { role: 'user', content: 'Hi' },
  ]);
  assert.is(draft.templateFormat, 'NONE');
  assert.is(draft.provider, 'OLLAMA');
  assert.is(draft.modelName, 'llama3');
  assert.is(draft.temperature, '0.7');
  assert.is(draft.maxTokens, '100');
  assert.equal(JSON.parse(draft.otherParameters), { seed: 3 });
});

test.run();
