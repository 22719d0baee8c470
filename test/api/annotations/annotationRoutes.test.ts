import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import type { ProjectCreated } from '../../../domain/projects/events.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { httpSpec, inStream } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('annotations over HTTP, given/when/then', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

// One server for the file: each test uses its own project and its own spans.
let next = 0;
const world = (name: string) => {
  next += 1;
  const projectId = `00000000-0000-4000-8000-${String(next).padStart(12, '0')}`;
  const created: ProjectCreated = {
    type: 'ProjectCreated',
    data: { projectId, name, description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
  };
  const traceId = newTraceId();
  const root = spanRecord({ traceId, attributes: attrs({ 'session.id': `sess-${name}` }) });
  const child = spanRecord({ traceId, parentId: root.spanId });
  const spans: DomainEvent = { type: 'SpansIngested', data: { ...batch(name, [root, child]), projectId } };
  return {
    name,
    projectId,
    traceId,
    sessionId: `sess-${name}`,
    root,
    child,
    given: [inStream(projectStream(name), created), inStream(`spans-${name}`, spans)] as const,
  };
};

const item = (spanId: string, over: Record<string, unknown> = {}) => ({
  span_id: spanId,
  name: 'correctness',
  annotator_kind: 'HUMAN',
  result: { label: 'correct', score: 1, explanation: null },
  metadata: null,
  identifier: '',
  ...over,
});

test('given a span, when a batch of span annotations is posted, then ONE event holds them all and the answer is {"data": []}', async ({
  server,
}) => {
  const w = world('one-event');
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_annotations', {
      body: { data: [item(w.root.spanId), item(w.child.spanId, { annotator_kind: 'LLM', result: { score: 0.25 } })] },
    })
    .then({
      status: 200,
      body: { data: [] },
      events: [
        {
          type: 'AnnotationsRecorded',
          data: {
            source: 'API',
            annotations: [
              {
                target: 'span',
                targetId: w.root.spanId,
                documentPosition: null,
                name: 'correctness',
                annotatorKind: 'HUMAN',
                label: 'correct',
                score: 1,
                explanation: null,
                metadata: {},
                identifier: '',
              },
              {
                target: 'span',
                targetId: w.child.spanId,
                documentPosition: null,
                name: 'correctness',
                annotatorKind: 'LLM',
                label: null,
                score: 0.25,
                explanation: null,
                metadata: {},
                identifier: '',
              },
            ],
          },
        },
      ],
    });
  const listed = await callJson(
    server,
    'GET',
    `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}&span_ids=${w.child.spanId}`,
  );
  assert.is(listed.status, 200);
  assert.equal(
    listed.body.data.map((a: { span_id: string; annotator_kind: string; result: unknown; source: string; user_id: unknown }) => [
      a.span_id,
      a.annotator_kind,
      a.result,
      a.source,
      a.user_id,
    ]),
    [
      [w.child.spanId, 'LLM', { label: null, score: 0.25, explanation: null }, 'API', null],
      [w.root.spanId, 'HUMAN', { label: 'correct', score: 1, explanation: null }, 'API', null],
    ],
  );
});

test('given an annotation, when the same name is posted again with sync=true, then it is replaced (same id) and the answer names it', async ({
  server,
}) => {
  const w = world('upsert');
  const first = await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_annotations?sync=true', { body: { data: [item(w.root.spanId, { result: { label: 'wrong', score: 0 } })] } })
    .then({ status: 200 });
  const id = (first.body as { data: { id: string }[] }).data[0]!.id;
  assert.match(Buffer.from(id, 'base64').toString(), /^SpanAnnotation:\d+$/);
  await httpSpec(server)
    .given()
    .when('POST', '/v1/span_annotations?sync=true', { body: { data: [item(w.root.spanId)] } })
    .then({ status: 200, body: { data: [{ id }] } });
  const listed = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}`);
  assert.equal(
    listed.body.data.map((a: { id: string; result: { label: string } }) => [a.id, a.result.label]),
    [[id, 'correct']],
  );
});

test('given no such span, when posted with sync=true, then 404 names it and nothing is appended; without sync it is kept for later', async ({
  server,
}) => {
  const w = world('early');
  await httpSpec(server)
    .given()
    .when('POST', '/v1/span_annotations?sync=true', { body: { data: [item(w.root.spanId)] } })
    .then({ status: 404, body: { detail: `Spans with IDs ${w.root.spanId} do not exist.`, code: 'span_not_found' }, events: [] });
  await httpSpec(server)
    .given()
    .when('POST', '/v1/span_annotations', { body: { data: [item(w.root.spanId)] } })
    .then({ status: 200, body: { data: [] } });
  // The span arrives afterwards: the annotation shows up with it.
  await httpSpec(server)
    .given(...w.given)
    .when('GET', `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}`)
    .then({
      status: 200,
      body: (b: { data: { span_id: string }[] }) =>
        assert.equal(
          b.data.map((a) => a.span_id),
          [w.root.spanId],
        ),
    });
});

test('given traces and sessions, when annotated and noted, then each lists under its project with its own id type', async ({ server }) => {
  const w = world('all-kinds');
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/trace_annotations?sync=true', {
      body: { data: [{ trace_id: w.traceId, name: 'helpful', annotator_kind: 'CODE', result: { label: 'yes' } }] },
    })
    .then({
      status: 200,
      body: (b: { data: { id: string }[] }) => assert.match(Buffer.from(b.data[0]!.id, 'base64').toString(), /^TraceAnnotation:/),
    });
  await httpSpec(server)
    .given()
    .when('POST', '/v1/session_annotations?sync=true', {
      body: { data: [{ session_id: w.sessionId, name: 'resolved', annotator_kind: 'HUMAN', result: { score: 1 } }] },
    })
    .then({
      status: 200,
      body: (b: { data: { id: string }[] }) => assert.match(Buffer.from(b.data[0]!.id, 'base64').toString(), /^ProjectSessionAnnotation:/),
    });
  const note = await httpSpec(server)
    .given()
    .when('POST', '/v1/trace_notes', { body: { data: { trace_id: ` ${w.traceId} `, note: '  check the tool call  ' } } })
    .then({
      status: 200,
      events: (events) => {
        const a = (events[0]!.data as { annotations: { name: string; explanation: string; identifier: string }[] }).annotations[0]!;
        assert.is(a.name, 'note');
        assert.is(a.explanation, 'check the tool call');
        assert.match(a.identifier, /^px-trace-note:[0-9a-f-]{36}$/);
      },
    });
  assert.ok((note.body as { data: { id: string } }).data.id);
  const traces = await callJson(server, 'GET', `/v1/projects/${w.name}/trace_annotations?trace_ids=${w.traceId}`);
  assert.equal(traces.body.data.map((a: { name: string }) => a.name).sort(), ['helpful', 'note']);
  const sessions = await callJson(server, 'GET', `/v1/projects/${w.name}/session_annotations?session_ids=${w.sessionId}`);
  assert.equal(
    sessions.body.data.map((a: { session_id: string; result: { score: number } }) => [a.session_id, a.result.score]),
    [[w.sessionId, 1]],
  );
});

test('given two notes without identifier, then both stay; with one identifier, then the second replaces the first', async ({ server }) => {
  const w = world('notes');
  const post = (body: unknown) => httpSpec(server).given().when('POST', '/v1/span_notes', { body }).then({ status: 200 });
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_notes', { body: { data: { span_id: w.root.spanId, note: 'a' } } })
    .then({ status: 200 });
  await post({ data: { span_id: w.root.spanId, note: 'b' } });
  await post({ data: { span_id: w.root.spanId, note: 'c', identifier: 'mine' } });
  await post({ data: { span_id: w.root.spanId, note: 'd', identifier: 'mine' } });
  const listed = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}`);
  assert.equal(listed.body.data.map((a: { result: { explanation: string } }) => a.result.explanation).sort(), ['a', 'b', 'd']);
});

test('given annotations, when listed with identifier, names and a small limit, then pages follow the cursor', async ({ server }) => {
  const w = world('paging');
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_annotations', {
      body: { data: ['a', 'b', 'c', 'd'].map((n) => item(w.root.spanId, { name: n, identifier: 'run-1' })) },
    })
    .then({ status: 200 });
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `identifier=run-1&exclude_annotation_names=b&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations?${q}`);
    assert.is(r.status, 200, r.text);
    names.push(...r.body.data.map((a: { name: string }) => a.name));
    cursor = r.body.next_cursor;
  } while (cursor);
  assert.equal(names, ['d', 'c', 'a']);
  const none = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations`);
  assert.is(none.status, 422, none.text);
  const unknown = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations?span_ids=0000000000000000`);
  assert.is(unknown.status, 404, unknown.text);
});

test('given annotations, when bulk-deleted by name with delete_all, then only that name goes; without a window or delete_all 422', async ({
  server,
}) => {
  const w = world('bulk-delete');
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_annotations', { body: { data: [item(w.root.spanId), item(w.root.spanId, { name: 'keep' })] } })
    .then({ status: 200 });
  await httpSpec(server)
    .given()
    .when('DELETE', `/v1/projects/${w.name}/span_annotations?name=correctness`)
    .then({ status: 422, events: [] });
  await httpSpec(server)
    .given()
    .when('DELETE', `/v1/projects/${w.name}/span_annotations?start_time=2030-01-01T00:00:00Z&end_time=2020-01-01T00:00:00Z`)
    .then({ status: 422, events: [] });
  await httpSpec(server)
    .given()
    .when('DELETE', `/v1/projects/${w.name}/span_annotations?name=correctness&delete_all=true`)
    .then({
      status: 204,
      events: [
        {
          type: 'AnnotationsDeleted',
          data: {
            projectId: w.projectId,
            target: 'span',
            name: 'correctness',
            identifier: null,
            annotatorKind: null,
            createdFrom: null,
            createdBefore: null,
            authorUserId: null,
          },
        },
      ],
    });
  const listed = await callJson(server, 'GET', `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}`);
  assert.equal(
    listed.body.data.map((a: { name: string }) => a.name),
    ['keep'],
  );
});

test('given a span with annotations, when the span is deleted over REST, then its annotations are gone', async ({ server }) => {
  const w = world('cascade');
  await httpSpec(server)
    .given(...w.given)
    .when('POST', '/v1/span_annotations', { body: { data: [item(w.root.spanId), item(w.child.spanId)] } })
    .then({ status: 200 });
  await httpSpec(server).given().when('DELETE', `/v1/spans/${w.root.spanId}`).then({ status: 204 });
  const listed = await callJson(
    server,
    'GET',
    `/v1/projects/${w.name}/span_annotations?span_ids=${w.root.spanId}&span_ids=${w.child.spanId}`,
  );
  assert.equal(
    listed.body.data.map((a: { span_id: string }) => a.span_id),
    [w.child.spanId],
  );
});

test.run();
