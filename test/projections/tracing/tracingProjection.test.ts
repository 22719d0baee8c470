import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createProject, deleteProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { attrs, batch, nanos, newSpanId, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, rows, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing projection', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const projectIdOf = async (h: Harness, name: string) => {
  const state = await loadProject(h.store, name);
  if (state.status !== 'active') throw new Error(`project ${name} is not active`);
  return state.projectId;
};

test('given spans of two traces in a session, then traces, spans and the session are projected', async ({ h }) => {
  const t1 = newTraceId();
  const t2 = newTraceId();
  const root1 = spanRecord({
    traceId: t1,
    name: 'agent',
    spanKind: 'AGENT',
    status: { code: 'OK', message: '' },
    startTimeUnixNano: nanos('2024-01-01T00:00:00Z', 123_456_789n),
    endTimeUnixNano: nanos('2024-01-01T00:00:05Z'),
    attributes: attrs({
      'openinference.span.kind': 'agent',
      'session.id': 'sess-1',
      'input.value': 'hi',
      'input.mime_type': 'text/plain',
      'output.value': 'hello',
    }),
  });
  const llm1 = spanRecord({
    traceId: t1,
    parentId: root1.spanId,
    name: 'llm',
    spanKind: 'LLM',
    status: { code: 'ERROR', message: 'boom' },
    startTimeUnixNano: nanos('2024-01-01T00:00:01Z'),
    endTimeUnixNano: nanos('2024-01-01T00:00:06Z'),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.token_count.prompt': 10,
      'llm.token_count.completion': 5,
      metadata: '{"tier":"gold","n":2}',
    }),
  });
  const root2 = spanRecord({
    traceId: t2,
    name: 'agent',
    startTimeUnixNano: nanos('2024-01-01T00:01:00Z'),
    endTimeUnixNano: nanos('2024-01-01T00:01:02Z'),
    attributes: attrs({
      'session.id': 'sess-1',
      'input.value': 'again',
      'output.value': '{"a":1}',
      'output.mime_type': 'application/json',
    }),
  });
  const llm2 = spanRecord({
    traceId: t2,
    parentId: root2.spanId,
    spanKind: 'LLM',
    startTimeUnixNano: nanos('2024-01-01T00:01:01Z'),
    endTimeUnixNano: nanos('2024-01-01T00:01:02Z'),
    attributes: attrs({ 'llm.token_count.prompt': '7' }),
  });
  await ingestSpans(h.store, [batch('shop', [root1, llm1, root2, llm2])], context);
  await h.project();

  const [project] = await rows(h.db.pool, sql.unsafe`SELECT id, name, description FROM projects`);
  assert.equal(project, { id: 1n, name: 'shop', description: null });
  const traces = await rows(
    h.db.pool,
    sql.unsafe`
    SELECT id, trace_id, project_id, start_time::text, end_time::text, root_span_id, span_count, error_count, token_count_prompt, token_count_completion, session_id
    FROM traces ORDER BY id`,
  );
  assert.equal(traces, [
    {
      id: 1n,
      trace_id: t1,
      project_id: 1n,
      start_time: '2024-01-01 00:00:00.123456+00',
      end_time: '2024-01-01 00:00:06+00',
      root_span_id: root1.spanId,
      span_count: 2,
      error_count: 1,
      token_count_prompt: 10n,
      token_count_completion: 5n,
      session_id: 1n,
    },
    {
      id: 2n,
      trace_id: t2,
      project_id: 1n,
      start_time: '2024-01-01 00:01:00+00',
      end_time: '2024-01-01 00:01:02+00',
      root_span_id: root2.spanId,
      span_count: 2,
      error_count: 0,
      token_count_prompt: 7n,
      token_count_completion: 0n,
      session_id: 1n,
    },
  ]);
  const spans = await rows(
    h.db.pool,
    sql.unsafe`SELECT id, span_id, trace_rowid, span_kind, attributes, llm_token_count_prompt FROM spans ORDER BY id`,
  );
  assert.equal(
    spans.map((s) => s.id),
    [1n, 2n, 3n, 4n],
  );
  assert.equal(spans[1]!.attributes, {
    'openinference.span.kind': 'LLM',
    'llm.token_count.prompt': 10,
    'llm.token_count.completion': 5,
    'metadata.tier': 'gold',
    'metadata.n': 2,
  });
  assert.equal(
    spans.map((s) => s.llm_token_count_prompt),
    [null, 10n, null, 7n],
  );
  const sessions = await rows(
    h.db.pool,
    sql.unsafe`
    SELECT id, session_id, project_id, start_time::text, end_time::text, trace_count, token_count_prompt, token_count_completion,
      first_input, first_input_mime_type, last_output, last_output_mime_type FROM sessions`,
  );
  assert.equal(sessions, [
    {
      id: 1n,
      session_id: 'sess-1',
      project_id: 1n,
      start_time: '2024-01-01 00:00:00.123456+00',
      end_time: '2024-01-01 00:01:02+00',
      trace_count: 2,
      token_count_prompt: 17n,
      token_count_completion: 5n,
      first_input: 'hi',
      first_input_mime_type: 'text/plain',
      last_output: '{"a":1}',
      last_output_mime_type: 'application/json',
    },
  ]);
});

test('a span sent again (same request or later) is stored once and counted once', async ({ h }) => {
  const t = newTraceId();
  const s = spanRecord({ traceId: t, spanKind: 'LLM', attributes: attrs({ 'llm.token_count.prompt': 3 }) });
  await ingestSpans(h.store, [batch('p', [s, { ...s, name: 'copy' }])], context);
  await h.project();
  await ingestSpans(h.store, [batch('p', [{ ...s, name: 'later copy' }])], context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT name FROM spans`), [{ name: 'span' }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT span_count, token_count_prompt FROM traces`), [
    { span_count: 1, token_count_prompt: 3n },
  ]);
});

test('a trace stays in the project that first saw it; the first session id of a trace wins', async ({ h }) => {
  const t = newTraceId();
  await ingestSpans(h.store, [batch('a', [spanRecord({ traceId: t, attributes: attrs({ 'session.id': 'first' }) })])], context);
  await h.project();
  await ingestSpans(h.store, [batch('b', [spanRecord({ traceId: t, attributes: attrs({ 'session.id': 'second' }) })])], context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT p.name FROM spans s JOIN projects p ON p.id = s.project_id`), [
    { name: 'a' },
    { name: 'a' },
  ]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT session_id, trace_count FROM sessions`), [{ session_id: 'first', trace_count: 1 }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT name FROM projects ORDER BY id`), [{ name: 'a' }, { name: 'b' }]);
});

test('deleting the last span of a trace deletes the trace and its now empty session', async ({ h }) => {
  const t = newTraceId();
  const s = spanRecord({ traceId: t, attributes: attrs({ 'session.id': 's' }) });
  const other = spanRecord({ traceId: newTraceId(), attributes: attrs({ 'session.id': 's2' }) });
  await ingestSpans(h.store, [batch('p', [s, other])], context);
  const projectId = await projectIdOf(h, 'p');
  await deleteTelemetry(h.store, 'p', { type: 'DeleteSpans', projectId, spanIds: [s.spanId] }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT span_id FROM spans`), [{ span_id: other.spanId }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_id FROM traces`), [{ trace_id: other.traceId }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT session_id FROM sessions`), [{ session_id: 's2' }]);
});

test('deleting the only span of a trace outside any session deletes the trace', async ({ h }) => {
  const s = spanRecord({ traceId: newTraceId() });
  await ingestSpans(h.store, [batch('p', [s])], context);
  await deleteTelemetry(h.store, 'p', { type: 'DeleteSpans', projectId: await projectIdOf(h, 'p'), spanIds: [s.spanId] }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM traces`), [{ n: 0 }]);
});

test('deleting one span of several recomputes its trace and session', async ({ h }) => {
  const t = newTraceId();
  const root = spanRecord({ traceId: t, attributes: attrs({ 'session.id': 's' }) });
  const child = spanRecord({
    traceId: t,
    parentId: root.spanId,
    spanKind: 'LLM',
    status: { code: 'ERROR', message: '' },
    attributes: attrs({ 'llm.token_count.prompt': 4 }),
  });
  await ingestSpans(h.store, [batch('p', [root, child])], context);
  await deleteTelemetry(h.store, 'p', { type: 'DeleteSpans', projectId: await projectIdOf(h, 'p'), spanIds: [child.spanId] }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT span_count, error_count, token_count_prompt FROM traces`), [
    { span_count: 1, error_count: 0, token_count_prompt: 0n },
  ]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT token_count_prompt FROM sessions`), [{ token_count_prompt: 0n }]);
});

test('deleting a trace deletes its spans; deleting a session deletes its traces and their spans', async ({ h }) => {
  const [a, b, c] = [newTraceId(), newTraceId(), newTraceId()];
  await ingestSpans(
    h.store,
    [
      batch('p', [
        spanRecord({ traceId: a }),
        spanRecord({ traceId: a }),
        spanRecord({ traceId: b, attributes: attrs({ 'session.id': 's' }) }),
        spanRecord({ traceId: c, attributes: attrs({ 'session.id': 's' }) }),
      ]),
    ],
    context,
  );
  const projectId = await projectIdOf(h, 'p');
  await deleteTelemetry(h.store, 'p', { type: 'DeleteTraces', projectId, traceIds: [a, b] }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_id FROM traces`), [{ trace_id: c }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM spans`), [{ n: 1 }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_count FROM sessions`), [{ trace_count: 1 }]);
  await deleteTelemetry(h.store, 'p', { type: 'DeleteSessions', projectId, sessionIds: ['s', 'unknown'] }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM spans`), [{ n: 0 }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM traces`), [{ n: 0 }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM sessions`), [{ n: 0 }]);
});

test('deleting a project deletes its telemetry; another project keeps its traces of a shared session, unlinked', async ({ h }) => {
  const mine = newTraceId();
  const theirs = newTraceId();
  await ingestSpans(h.store, [batch('doomed', [spanRecord({ traceId: mine, attributes: attrs({ 'session.id': 'shared' }) })])], context);
  await ingestSpans(h.store, [batch('kept', [spanRecord({ traceId: theirs, attributes: attrs({ 'session.id': 'shared' }) })])], context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_count FROM sessions`), [{ trace_count: 2 }]);
  await deleteProject(h.store, 'doomed', { projectId: await projectIdOf(h, 'doomed'), defaultProjectName: 'default' }, context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT name FROM projects`), [{ name: 'kept' }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_id, session_id FROM traces`), [{ trace_id: theirs, session_id: null }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM sessions`), [{ n: 0 }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM spans`), [{ n: 1 }]);
});

test('spans that reach the log after their project was deleted go with it, not to a new project of that name', async ({ h }) => {
  await createProject(h.store, { name: 'p', description: 'first' }, context);
  const old = await projectIdOf(h, 'p');
  await deleteProject(h.store, 'p', { projectId: old, defaultProjectName: 'default' }, context);
  // As if an exporter had resolved the project just before the deletion.
  await h.store.appendToStream(
    `spans-${old}-late`,
    [
      {
        type: 'SpansIngested',
        data: { ...batch('p', [spanRecord({ traceId: newTraceId() })]), projectId: old },
        metadata: { actor: 't', requestId: null, time: '2024-01-01T00:00:00Z', causation: null },
      },
    ],
    'no_stream',
  );
  await ingestSpans(h.store, [batch('p', [spanRecord({ traceId: newTraceId(), spanId: newSpanId() })])], context);
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT id, description FROM projects`), [{ id: 2n, description: null }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT count(*)::int AS n FROM spans`), [{ n: 1 }]);
});

test('given span text holding the characters the rows are written with (tab, newline, CR, backslash, \\N), then every column keeps them exactly', async ({
  h,
}) => {
  const awkward = 'a\tb\nc\rd\\e \\N \\t "q" \u00e9\u{1F600}';
  const span = spanRecord({
    traceId: newTraceId(),
    name: awkward,
    status: { code: 'ERROR', message: awkward },
    attributes: attrs({ 'input.value': awkward, [`key${awkward}`]: 'v', 'metadata.path': 'C:\\temp\\new' }),
    events: [{ name: awkward, timeUnixNano: nanos('2024-01-01T00:00:00Z'), attributes: attrs({ 'exception.message': awkward }) }],
  });
  await ingestSpans(h.store, [batch('p', [span])], context);
  await h.project();

  const [row] = await rows(h.db.pool, sql.unsafe`SELECT name, status_message, attributes, attribute_index, events FROM spans`);
  assert.is(row!.name, awkward);
  assert.is(row!.status_message, awkward);
  const attributes = row!.attributes as Record<string, unknown>;
  assert.is(attributes['input.value'], awkward);
  assert.is(attributes[`key${awkward}`], 'v');
  assert.is(attributes['metadata.path'], 'C:\\temp\\new');
  assert.is((row!.attribute_index as Record<string, unknown>)['input.value'], awkward);
  const [event] = row!.events as { name: string; attributes: Record<string, unknown> }[];
  assert.is(event!.name, awkward);
  assert.is(event!.attributes['exception.message'], awkward);
});

test('given spans whose rows fill several COPY chunks, then every row arrives whole', async ({ h }) => {
  // 40 spans of ~3 KB of text each: ~120 KB of COPY text, sent in chunks of ~32 KB with rows
  // never split across two (copyFromStdin); each row must arrive exactly once and intact.
  const traceId = newTraceId();
  const spans = Array.from({ length: 40 }, (_, i) =>
    spanRecord({ traceId, spanId: newSpanId(), name: `span ${i}`, attributes: attrs({ 'input.value': `${i}:${'x\t'.repeat(1500)}` }) }),
  );
  await ingestSpans(h.store, [batch('p', spans)], context);
  await h.project();
  const stored = await rows(h.db.pool, sql.unsafe`SELECT name, attributes->>'input.value' AS input FROM spans ORDER BY id`);
  assert.equal(
    stored,
    spans.map((_, i) => ({ name: `span ${i}`, input: `${i}:${'x\t'.repeat(1500)}` })),
  );
});

test.run();
