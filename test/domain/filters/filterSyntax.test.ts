import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FilterError, type FilterExpr, parseFilter } from '../../../domain/filters/filterSyntax.ts';

/** The tree without positions, as a compact string: enough to see precedence and operands. */
const show = (e: FilterExpr): string => {
  const operand = (o: unknown): string => {
    const x = o as { kind: string; path?: string; key?: string; name?: string; property?: string; value?: unknown; items?: unknown[] };
    if (x.kind === 'name') return x.path!;
    if (x.kind === 'attribute') return `attributes[${x.key}]`;
    if (x.kind === 'annotation') return `annotations[${x.name}].${x.property}`;
    if (x.kind === 'list') return JSON.stringify(x.items);
    return JSON.stringify(x.value);
  };
  switch (e.kind) {
    case 'and':
    case 'or':
      return `(${show(e.left)} ${e.kind} ${show(e.right)})`;
    case 'not':
      return `not ${show(e.operand)}`;
    case 'compare':
      return `${operand(e.left)} ${e.op} ${operand(e.right)}`;
    case 'in':
      return `${operand(e.needle)} ${e.negated ? 'not in' : 'in'} ${operand(e.haystack)}`;
    case 'isNone':
      return `${operand(e.operand)} is ${e.negated ? 'not ' : ''}None`;
  }
};

test('and binds tighter than or, not tighter than and, as in Python', () => {
  assert.is(show(parseFilter("a.b == 1 or name == 'x' and not latency_ms < 5")), '(a.b == 1 or (name == "x" and not latency_ms < 5))');
  assert.is(show(parseFilter("(a.b == 1 or name == 'x') and latency_ms < 5")), '((a.b == 1 or name == "x") and latency_ms < 5)');
});

test('operands: dotted keys with list indexes, attributes[...], annotations[...], literals, lists and tuples', () => {
  assert.is(show(parseFilter('llm.input_messages.0.message.content is not None')), 'llm.input_messages.0.message.content is not None');
  assert.is(show(parseFilter(`attributes["a b"] != -1.5e3`)), 'attributes[a b] != -1500');
  assert.is(show(parseFilter("evals['q'].score > .5".replace('.5', '0.5'))), 'annotations[q].score > 0.5');
  assert.is(show(parseFilter("span_kind not in ('LLM', 'TOOL',)")), 'span_kind not in ["LLM","TOOL"]');
  assert.is(show(parseFilter(`'it\\'s' in output.value`)), `"it's" in output.value`);
  assert.is(show(parseFilter('x.flag == True and y.z == None')), '(x.flag == true and y.z == null)');
  assert.is(show(parseFilter('5000 < latency_ms')), '5000 < latency_ms');
});

test('errors name the position and what was expected', () => {
  const fails = (text: string, position: number, expected: RegExp) => {
    try {
      parseFilter(text);
    } catch (error) {
      assert.instance(error, FilterError);
      assert.is((error as FilterError).position, position, text);
      assert.match((error as FilterError).expected, expected, text);
      return;
    }
    assert.unreachable(`parsed: ${text}`);
  };
  fails('', 0, /a condition/);
  fails('name ==', 7, /a field .* a string or a number/);
  fails("name == 'a' name == 'b'", 12, /"and", "or"/);
  fails("name = 'a'", 5, /a name, a string, a number/);
  fails('os.system("x")', 9, /calls are not part/);
  fails("name in ['a', name]", 14, /a string, number, True, False or None in the list/);
  fails("name == 'a\\q'", 10, /escapes/);
  fails("annotations['x'].value == 1", 17, /"label" or "score"/);
  fails(`name == 'a${'\\0'}'`, 8, /without NUL/);
  fails('latency_ms is 5', 14, /"None" after "is"/);
});

test.run();
