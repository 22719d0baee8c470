import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderAttributes, renderEventAttributes } from '../../../domain/tracing/renderAttributes.ts';

test('scalars keep their JSON type; lists of scalars stay lists; empty values are left out', () => {
  assert.equal(
    renderAttributes({
      s: { str: 'x' },
      i: { int: '5' },
      f: { float: 2.5 },
      b: { bool: true },
      nan: { float: 'NaN' },
      none: null,
      tags: { array: [{ str: 'a' }, { str: 'b' }] },
      bytes: { bytes: 'AAE=' },
    }),
    { s: 'x', i: 5, f: 2.5, b: true, nan: 'NaN', tags: ['a', 'b'], bytes: 'AAE=' },
  );
});

test('JSON objects in metadata-like strings, kvlists and lists of objects become dotted keys', () => {
  assert.equal(
    renderAttributes({
      metadata: { str: '{"tier":"gold","limits":{"rpm":5},"tags":["x"]}' },
      'tool.parameters': { str: '{"q":"text"}' },
      'llm.prompt_template.variables': { str: 'not json' },
      'llm.invocation': { kvlist: { model: { str: 'm' }, opts: { kvlist: { t: { float: 0.5 } } } } },
      'llm.input_messages': {
        array: [{ kvlist: { 'message.role': { str: 'user' } } }, { str: 'dropped' }, { kvlist: { 'message.role': { str: 'ai' } } }],
      },
    }),
    {
      'metadata.tier': 'gold',
      'metadata.limits.rpm': 5,
      'metadata.tags': ['x'],
      'tool.parameters.q': 'text',
      'llm.prompt_template.variables': 'not json',
      'llm.invocation.model': 'm',
      'llm.invocation.opts.t': 0.5,
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.2.message.role': 'ai',
    },
  );
});

test('token counts sent as digit strings become integers; a non-string input.value becomes JSON text', () => {
  assert.equal(
    renderAttributes({
      'llm.token_count.prompt': { str: ' 12 ' },
      'input.mime_type': { str: 'text/plain' },
      'input.value': { kvlist: { q: { str: 'hi' } } },
    }),
    { 'llm.token_count.prompt': 12, 'input.mime_type': 'application/json', 'input.value': '{"q":"hi"}' },
  );
});

test('a key named __proto__ stays a key', () => {
  const out = renderAttributes(JSON.parse('{"__proto__": {"str": "x"}}'));
  assert.equal(Object.keys(out), ['__proto__']);
  assert.equal(JSON.stringify(out), '{"__proto__":"x"}');
});

test('event attributes stay flat; exception events keep only the exception keys', () => {
  assert.equal(renderEventAttributes('x', { 'a.b': { int: '1' }, k: { kvlist: { c: { str: 'd' } } } }), { 'a.b': 1, k: { c: 'd' } });
  assert.equal(
    renderEventAttributes('exception', {
      'exception.type': { str: 'E' },
      'exception.message': { str: 'm' },
      'exception.escaped': { bool: false },
      other: { str: 'x' },
    }),
    { 'exception.type': 'E', 'exception.message': 'm', 'exception.escaped': false },
  );
});

test.run();
