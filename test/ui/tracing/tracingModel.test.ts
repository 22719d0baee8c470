import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ioContentOf, previewText, soleText } from '../../../ui/src/lib/tracing/ioContent.ts';
import { inputMessages, outputMessages, retrievedDocuments, toolOf } from '../../../ui/src/lib/tracing/openInference.ts';
import { filterFromSearch, filterToSearch, sortFromSearch } from '../../../ui/src/lib/tracing/spanFilters.ts';
import { ancestorsOf, barOf, buildSpanTree, collapseBelow, isoToMs, visibleRows } from '../../../ui/src/lib/tracing/spanTree.ts';
import type { TreeSpan } from '../../../ui/src/lib/tracing/tracingTypes.ts';
import { isSafeImageUrl, isSafeLinkUrl } from '../../../ui/src/lib/tracing/safeUrls.ts';

/**
 * The tracing pages' pure parts, without a browser: the span tree the trace page draws, the
 * filters kept in the URL, how span content is classified, and what is read from OpenInference
 * attributes. The browser tests (tracingFlows, tracingHugeTrace) cover the same through the UI.
 */

const test = suite('tracing UI model');

const span = (spanId: string, parentId: string | null, startTime: string, latencyMs = 1): TreeSpan => ({
  id: `Span:${spanId}`,
  spanId,
  parentId,
  name: spanId,
  spanKind: 'chain',
  statusCode: 'OK',
  startTime,
  latencyMs,
  tokenCountTotal: null,
});

test('the tree orders siblings by start time to the microsecond and shows orphans as roots', () => {
  // Given spans in arrival order, two starting within the same millisecond, one whose parent never arrived
  const tree = buildSpanTree([
    span('b', 'root', '2024-01-01T00:00:00.000900Z'),
    span('root', null, '2024-01-01T00:00:00Z', 10),
    span('a', 'root', '2024-01-01T00:00:00.000100Z'),
    span('orphan', 'missing', '2024-01-01T00:00:00.005Z'),
  ]);
  // Then the root comes first with a before b, and the orphan is a root of its own
  const rows = visibleRows(tree, new Set());
  assert.equal(
    rows.map((r) => [r.node.span.spanId, r.depth]),
    [
      ['root', 0],
      ['a', 1],
      ['b', 1],
      ['orphan', 0],
    ],
  );
  assert.ok(Math.abs(isoToMs('2024-01-01T00:00:00.000100Z') - Date.parse('2024-01-01T00:00:00Z') - 0.1) < 0.001, 'microseconds kept');
  // And the waterfall places the orphan half-way through the 10 ms trace
  const orphan = tree.byId.get('orphan')!;
  assert.is(barOf(tree, orphan).left, 0.5);
});

test('collapsing hides descendants; a span deep in a 10,000-long chain has all its ancestors', () => {
  const chain = Array.from({ length: 10_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, '2024-01-01T00:00:00Z'));
  const tree = buildSpanTree(chain);
  assert.is(visibleRows(tree, new Set()).length, 10_000, 'no stack overflow on a deep tree');
  assert.is(visibleRows(tree, collapseBelow(tree, 2)).length, 2);
  assert.is(visibleRows(tree, new Set(['s0'])).length, 1);
  const ancestors = ancestorsOf(tree, 's9999');
  assert.is(ancestors.length, 9_999);
  assert.is(ancestors[0], 's9998');
});

test('filters survive the URL both ways; unknown values and the router turning "5" into 5 are handled', () => {
  const filter = {
    statusCodes: ['ERROR', 'OK'],
    spanKinds: ['llm'],
    names: ['chat'],
    attributes: [{ key: 'llm.model_name', value: 'gpt-4o=mini' }],
    condition: "latency_ms > 5000 and 'refund' in input.value",
    search: 'refund "two words"',
  } as const;
  const search = filterToSearch(filter);
  assert.equal(search, {
    status: 'ERROR,OK',
    kind: 'llm',
    name: 'chat',
    attr: 'llm.model_name=gpt-4o=mini',
    where: "latency_ms > 5000 and 'refund' in input.value",
    q: 'refund "two words"',
  });
  assert.equal(filterFromSearch(search), filter);
  assert.equal(filterFromSearch({ status: 'BROKEN,ERROR', kind: 'nope', name: 5, attr: '=x' }), {
    statusCodes: ['ERROR'],
    spanKinds: [],
    names: ['5'],
    attributes: [],
    condition: '',
    search: '',
  });
  assert.equal(sortFromSearch({ sort: 'latencyMs', dir: 'asc' }), { col: 'latencyMs', dir: 'asc' });
  assert.equal(sortFromSearch({ sort: 'name; drop table' }), { col: 'startTime', dir: 'desc' });
});

test('span content is classified by MIME type and shape; only https: and raster data: images are images', () => {
  assert.is(ioContentOf('{"a": 1}', 'application/json').kind, 'json');
  assert.is(ioContentOf('[1, 2]', 'text/plain').kind, 'json', 'JSON sent as text');
  assert.is(ioContentOf('{not json', 'application/json').kind, 'text');
  assert.equal(ioContentOf('"hello"', 'application/json'), { kind: 'text', text: 'hello' });
  assert.is(ioContentOf('# Title', 'text/markdown').kind, 'markdown');
  assert.is(ioContentOf('data:image/png;base64,AAAA', 'text/plain').kind, 'image');
  assert.is(ioContentOf('data:image/svg+xml;base64,AAAA', 'text/plain').kind, 'text', 'SVG can carry script');
  assert.is(ioContentOf('javascript:alert(1)', 'image/png').kind, 'text');
  assert.ok(isSafeLinkUrl('https://example.com') && isSafeLinkUrl('mailto:a@b.c'));
  assert.not.ok(isSafeLinkUrl(' javascript:alert(1)') || isSafeLinkUrl('data:text/html,x') || isSafeLinkUrl('vbscript:x'));
  assert.not.ok(isSafeImageUrl('http://tracker.example/x.png'));
  assert.is(previewText({ truncatedValue: '{"question":"How do I \\"reset\\"\\nit' }), 'How do I "reset" it');
  assert.is(previewText({ truncatedValue: '  two\n\nlines ' }), 'two lines');
  assert.is(previewText({ truncatedValue: '{"plan": "pro"}' }), '{"plan": "pro"}', 'only conversational fields are unwrapped');
  // Markdown previews as the words it renders (the page renders it); other text keeps its characters
  assert.is(
    previewText({
      truncatedValue: '**Sure.** Here is what to do:\n\n1. Open *Settings*\n## Next\nSee [the docs](https://example.com/docs',
      mimeType: 'text/markdown',
    }),
    'Sure. Here is what to do: Open *Settings* Next See the docs',
  );
  assert.is(previewText({ truncatedValue: '**not** markdown', mimeType: 'text/plain' }), '**not** markdown');
  assert.is(soleText({ question: 'q' }), 'q');
  assert.is(soleText({ question: 'q', k: 3 }), null);
});

test('OpenInference attributes: messages with tool calls and images, documents, tools; junk is skipped', () => {
  const attributes = {
    llm: {
      input_messages: [
        {
          message: {
            role: 'user',
            content: 'hi',
            contents: [{ message_content: { type: 'image', image: { image: { url: 'https://x/y.png' } } } }],
          },
        },
        { message: 'junk' },
        7,
      ],
      output_messages: [
        { message: { role: 'assistant', tool_calls: [{ tool_call: { id: 'c1', function: { name: 'f', arguments: { a: 1 } } } }] } },
      ],
    },
    retrieval: { documents: [{ document: { id: 'd1', content: 'text', score: 0.5 } }, { nothing: true }] },
    tool: { name: 'search', parameters: { type: 'object' } },
  };
  const input = inputMessages(attributes);
  assert.is(input.length, 1);
  assert.equal(input[0]!.parts, [
    { kind: 'text', text: 'hi' },
    { kind: 'image', url: 'https://x/y.png' },
  ]);
  assert.equal(outputMessages(attributes)[0]!.toolCalls, [{ id: 'c1', name: 'f', arguments: '{\n  "a": 1\n}' }]);
  assert.equal(
    retrievedDocuments(attributes).map((d) => d.id),
    ['d1'],
  );
  assert.is(toolOf(attributes)?.name, 'search');
  assert.equal(inputMessages({ llm: 'not an object' }), []);
});

test.run();
