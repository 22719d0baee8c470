import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AttributeValue } from '../../../domain/tracing/attributes.ts';
import { pythonFloatRepr, sessionIdOf } from '../../../domain/tracing/sessionId.ts';

const test = suite('sessionIdOf: the text Phoenix derives with str(value).strip()');

const of = (v: AttributeValue) => sessionIdOf({ 'session.id': v });

test('strings are stripped; blank or absent means no session', () => {
  assert.is(of({ str: ' a b c ' }), 'a b c');
  assert.is(of({ str: '   ' }), null);
  assert.is(of(null), null);
  assert.is(sessionIdOf({}), null);
});

test('other types read as Python would print them', () => {
  assert.is(of({ int: '0' }), '0');
  assert.is(of({ float: 3.14 }), '3.14');
  assert.is(of({ float: 2 }), '2.0');
  assert.is(of({ bool: true }), 'True');
  assert.is(of({ array: [{ int: '1' }, { int: '2' }] }), '[1, 2]');
  assert.is(of({ array: [{ str: 'a' }, { str: 'b' }] }), "['a', 'b']");
  assert.is(of({ array: [] }), '[]');
  assert.is(of({ array: [{ str: "it's" }, { bool: false }, null] }), '["it\'s", False, None]');
  assert.is(of({ kvlist: { k: { str: 'v' } } }), "{'k': 'v'}");
  assert.is(of({ bytes: Buffer.from("a'\n").toString('base64') }), 'b"a\'\\n"');
  assert.is(of({ bytes: Buffer.from([0x61, 0xff]).toString('base64') }), "b'a\\xff'");
});

test('float repr matches Python', () => {
  const cases: [number | 'NaN' | 'Infinity' | '-Infinity', string][] = [
    [0.1, '0.1'],
    [1, '1.0'],
    [-2.5, '-2.5'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [123456789012345680, '1.2345678901234568e+17'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [-0, '-0.0'],
    ['NaN', 'nan'],
    ['Infinity', 'inf'],
    ['-Infinity', '-inf'],
  ];
  for (const [f, text] of cases) assert.is(pythonFloatRepr(f), text, String(f));
});

test.run();
