import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AttributeValue } from '../../../domain/tracing/attributes.ts';
import { renderAttributes } from '../../../domain/tracing/renderAttributes.ts';
import { sessionIdOf } from '../../../domain/tracing/sessionId.ts';
import { clippedText, MAX_DEPTH, NAME_MAX_BYTES, storableText, TOO_DEEP } from '../../../domain/base/storableText.ts';
import { storableAttributes, storableBatch, storableSpan } from '../../../domain/tracing/storable.ts';
import { batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

/** An attribute value nested `levels` kvlists deep, built without recursion. */
const nestedValue = (levels: number): AttributeValue => {
  let v: AttributeValue = { str: 'bottom' };
  for (let i = 0; i < levels; i++) v = { kvlist: { k: v } };
  return v;
};

/** The depth of the deepest kvlist/array chain under `v`, walked without recursion. */
const depthOf = (v: AttributeValue): number => {
  let max = 0;
  const stack: [AttributeValue, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    max = Math.max(max, d);
    if (x !== null && 'kvlist' in x) for (const y of Object.values(x.kvlist)) stack.push([y, d + 1]);
    if (x !== null && 'array' in x) for (const y of x.array) stack.push([y, d + 1]);
  }
  return max;
};

test('NUL and unpaired surrogates become U+FFFD; a paired surrogate stays', () => {
  assert.is(storableText('a\u0000b'), 'a\ufffdb');
  assert.is(storableText('x\ud800y\udc00'), 'x\ufffdy\ufffd');
  assert.is(storableText('😀'), '😀');
  const clean = 'nothing to fix';
  assert.is(storableText(clean), clean);
});

test('a long name is cut to the byte limit on a code point boundary, ending in an ellipsis', () => {
  const cut = clippedText('é'.repeat(5000), NAME_MAX_BYTES);
  assert.ok(Buffer.byteLength(cut) <= NAME_MAX_BYTES, String(Buffer.byteLength(cut)));
  assert.ok(cut.endsWith('…'));
  assert.ok(cut.startsWith('éé'));
  assert.is(clippedText('😀'.repeat(2000), 10), '😀…');
  assert.is(clippedText(cut, NAME_MAX_BYTES), cut, 'idempotent');
});

test('a span with every hostile field is storable, and normalising it again changes nothing', () => {
  const span = spanRecord({
    traceId: newTraceId(),
    name: 'n\u0000'.repeat(5000),
    status: { code: 'ERROR', message: 'm\ud800' },
    sessionId: 's'.repeat(8200),
    attributes: {
      ['k'.repeat(9000)]: { str: 'v' },
      'a\u0000': { str: '\udfff' },
      big: { int: '99999999999999999999' },
      deep: nestedValue(50_000),
      weird: { float: 'nope' } as unknown as AttributeValue,
    },
    events: [{ name: 'e\u0000'.repeat(3000), timeUnixNano: '99999999999999999999999', attributes: { x: { str: '\u0000' } } }],
  });
  const out = storableSpan(span);
  assert.ok(Buffer.byteLength(out.name) <= NAME_MAX_BYTES && !out.name.includes('\u0000'));
  assert.is(out.status.message, 'm\ufffd');
  assert.ok(Buffer.byteLength(out.sessionId!) <= NAME_MAX_BYTES);
  assert.ok(Object.keys(out.attributes).every((k) => Buffer.byteLength(k) <= NAME_MAX_BYTES && !k.includes('\u0000')));
  assert.equal(out.attributes['a\ufffd'], { str: '\ufffd' });
  assert.equal(out.attributes.big, { int: '9223372036854775807' });
  assert.equal(out.attributes.weird, { float: 'NaN' });
  // MAX_DEPTH levels of values, the last of which holds the marker in place of the rest.
  assert.is(depthOf(out.attributes.deep!), MAX_DEPTH + 1);
  assert.ok(JSON.stringify(out.attributes.deep).includes(TOO_DEEP));
  assert.is(out.events[0]!.timeUnixNano, (2n ** 64n - 1n).toString());
  assert.equal(out.events[0]!.attributes, { x: { str: '\ufffd' } });
  // Round trip through JSON (as the event store does) and normalise again: identical.
  const again = storableSpan(JSON.parse(JSON.stringify(out)));
  assert.equal(again, out);
});

test('a clean batch is returned as is (ingest runs this on every request)', () => {
  const b = batch('shop', [spanRecord({ traceId: newTraceId(), attributes: { a: { array: [{ int: '1' }] } } })]);
  assert.is(storableBatch(b), b);
});

test('an attribute map with one value to fix keeps every key in its order, and the others as they were', () => {
  const first = { str: 'clean' };
  const last = { array: [{ int: '1' }] };
  const attributes = { a: first, b: { str: 'nul\u0000here' }, ['c'.repeat(NAME_MAX_BYTES + 10)]: { bool: true }, d: last };
  const out = storableAttributes(attributes);
  assert.is.not(out, attributes);
  assert.equal(Object.keys(out), ['a', 'b', `${'c'.repeat(NAME_MAX_BYTES - 3)}…`, 'd']);
  assert.is(out.a, first);
  assert.equal(out.b, { str: 'nul\ufffdhere' });
  assert.is(out.d, last);
  // Nothing to fix: the same map, not a copy.
  const clean = { a: first, d: last };
  assert.is(storableAttributes(clean), clean);
});

test('a crafted record of the wrong shape is coerced, never thrown on', () => {
  const out = storableBatch({ projectName: 7, resources: 'x', spans: [null, { attributes: [1], events: 'e', status: 5 }] } as never);
  assert.is(out.projectName, '');
  assert.equal(out.resources, []);
  assert.is(out.spans.length, 2);
  assert.equal(out.spans[0]!.startTimeUnixNano, '0');
  assert.equal(out.spans[1]!.status, { code: 'UNSET', message: '' });
});

test('rendering: JSON strings that expand into NUL, lone surrogates or 50,000 levels stay storable', () => {
  const deepJson = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
  const deepList = `{"l":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
  const out = renderAttributes(
    storableAttributes({
      metadata: { str: '{"a":"x\\u0000y","k\\u0000":"\\ud800"}' },
      'tool.parameters': { str: deepJson },
      'llm.prompt_template.variables': { str: deepList },
      'llm.token_count.prompt': { str: '99999999999999999999' },
    }),
  );
  const text = JSON.stringify(out);
  assert.not.ok(/\\u0000|\\ud800/.test(text), text.slice(0, 300));
  assert.is(out['metadata.a'], 'x\ufffdy');
  assert.is(out['metadata.k\ufffd'], '\ufffd');
  assert.ok(Object.entries(out).some(([k, v]) => k.startsWith('tool.parameters.a.a') && v === TOO_DEEP));
  assert.ok(text.length < 10_000, 'the cut nesting is not kept');
});

test('the session id is derived from storable attributes (a deep value cannot overflow the stack)', () => {
  const id = sessionIdOf(storableAttributes({ 'session.id': { array: [nestedValue(50_000)] } }));
  assert.ok(id?.includes(TOO_DEEP));
});

test.run();
