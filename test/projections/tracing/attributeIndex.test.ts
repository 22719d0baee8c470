import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { listSpans } from '../../../projections/tracing/spanQueries.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, tracingHarness } from './tracingHarness.ts';

const test = suite('attribute filters through the small-attribute index');

test('given spans with short and long attribute values, then every filter finds exactly the spans a containment on all attributes finds', async () => {
  const h = await tracingHarness();
  try {
    await createProject(h.store, { name: 'p', description: null }, context);
    const long = 'L'.repeat(300); // too big for the index: found on the whole document
    const spans = Array.from({ length: 40 }, (_, i) =>
      spanRecord({
        traceId: newTraceId(),
        attributes: attrs({
          'user.id': `u${i % 20}`,
          'input.value': i === 7 ? long : `short ${i}`,
          'llm.token_count.prompt': i,
          ok: i % 2 === 0,
        }),
      }),
    );
    await ingestSpans(h.store, [batch('p', spans)], { actor: 'test', requestId: null });
    await h.project();
    const state = await loadProject(h.store, 'p');
    if (state.status !== 'active') throw new Error('no project');
    const projectId = Number(await h.db.pool.oneFirst(sql.unsafe`SELECT id FROM projects WHERE project_id = ${state.projectId}`));
    const find = async (key: string, value: string | number | boolean | null) =>
      (await listSpans(h.db.pool, { projectId, cursor: null, limit: 100, attributes: [{ key, value }] })).map((s) => s.span_id).sort();
    const expected = (pick: (i: number) => boolean) =>
      spans
        .filter((_, i) => pick(i))
        .map((s) => s.spanId)
        .sort();

    assert.equal(
      await find('user.id', 'u3'),
      expected((i) => i % 20 === 3),
    );
    assert.equal(
      await find('input.value', long),
      expected((i) => i === 7),
    );
    assert.equal(
      await find('input.value', 'short 8'),
      expected((i) => i === 8),
    );
    assert.equal(
      await find('llm.token_count.prompt', 12),
      expected((i) => i === 12),
    );
    assert.equal(
      await find('ok', true),
      expected((i) => i % 2 === 0),
    );
    assert.equal(await find('user.id', 'nobody'), []);
    // The long value is kept out of the index, the short ones are in it.
    const index = await h.db.pool.oneFirst(sql.unsafe`SELECT attribute_index FROM spans WHERE span_id = ${spans[7]!.spanId}`);
    assert.equal(Object.keys(index as object).sort(), ['llm.token_count.prompt', 'ok', 'user.id']);
  } finally {
    await h.db.close();
  }
});

test.run();
