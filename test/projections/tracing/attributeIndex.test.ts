import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rawSql } from '../../../projections/migrate.ts';
import { attributeIndexOf } from '../../../projections/tracing/attributeFilter.ts';
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

test('given awkward attribute values, then the projector builds the attribute_index the SQL expression of the migration builds', async () => {
  const h = await tracingHarness();
  try {
    await createProject(h.store, { name: 'p', description: null }, context);
    // Values around the 256-byte limit as Postgres prints them: escapes, multi-byte characters,
    // numbers it writes out longer than JSON.stringify (1e+21, 1.5e-7), nested JSON with ", " and ": ".
    const around = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / Buffer.byteLength(JSON.stringify(unit).slice(1, -1))));
    const values: Record<string, string | number | boolean | readonly (string | number | boolean)[]> = {
      big: 1e21,
      bigger: 1.2345e25,
      tiny: 1.5e-7,
      tinier: -5e-300,
      plain: 123.456,
      negative: -42,
      ints: Array.from({ length: 60 }, (_, i) => i * 1000),
      floats: [1e21, 2.5e-7, 3.25],
      words: Array.from({ length: 30 }, (_, i) => `w"${i}`),
      flag: false,
    };
    for (const bytes of [252, 253, 254, 255, 256, 257, 258]) {
      values[`ascii.${bytes}`] = 'a'.repeat(bytes - 2);
      values[`quote.${bytes}`] = around('"', bytes - 2);
      values[`newline.${bytes}`] = `${around('\n', bytes - 3)}x`;
      values[`control.${bytes}`] = around('\u0001', bytes - 2);
      values[`euro.${bytes}`] = around('€', bytes - 2);
      values[`emoji.${bytes}`] = around('😀', bytes - 2);
    }
    const metadata = JSON.stringify({
      nested: { a: [1, 2, { b: 'c' }], d: 1e21 },
      long: 'x'.repeat(300),
      list: Array.from({ length: 40 }, (_, i) => i),
      deep: { e: { f: { g: 1.5e-7 } } },
    });
    const spans = [
      spanRecord({ traceId: newTraceId(), attributes: attrs(values) }),
      spanRecord({ traceId: newTraceId(), attributes: { ...attrs({ x: 1 }), metadata: { str: metadata } } }),
      spanRecord({
        traceId: newTraceId(),
        attributes: { kv: { kvlist: { a: { int: '1' }, b: { array: [{ str: 'x' }, { bool: true }] } } }, bytes: { bytes: 'AAEC' } },
      }),
    ];
    await ingestSpans(h.store, [batch('p', spans)], { actor: 'test', requestId: null });
    await h.project();
    const differing = await h.db.pool.anyFirst(
      rawSql(`SELECT span_id FROM spans WHERE attribute_index <> ${attributeIndexOf('attributes')}`),
    );
    assert.equal(differing, []);
    const keys = Object.keys(
      (await h.db.pool.oneFirst(sql.unsafe`SELECT attribute_index FROM spans WHERE span_id = ${spans[0]!.spanId}`)) as object,
    );
    assert.ok(keys.includes('ascii.256') && !keys.includes('ascii.257'), keys.join(' '));
  } finally {
    await h.db.close();
  }
});

test.run();
