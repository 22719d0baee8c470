process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { createClient } from '@arizeai/phoenix-client';
import { addSessionAnnotation, addSessionNote, logSessionAnnotations } from '@arizeai/phoenix-client/sessions';
import {
  addDocumentAnnotation,
  addSpanAnnotation,
  addSpanNote,
  getSpanAnnotations,
  logDocumentAnnotations,
  logSpanAnnotations,
} from '@arizeai/phoenix-client/spans';
import { addTraceAnnotation, addTraceNote, logTraceAnnotations } from '@arizeai/phoenix-client/traces';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { annotationsOnTargets } from '../../../projections/annotations/annotationQueries.ts';
import { seed } from '../../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; client: ReturnType<typeof createClient> };
const test = suite<Ctx>('@arizeai/phoenix-client annotation and note functions against Loupe', {} as Ctx);

const PROJECT = 'client-annotations';
const traceId = newTraceId();
const sessionId = 'client-session';
const root = spanRecord({
  traceId,
  name: 'retrieve',
  spanKind: 'RETRIEVER',
  attributes: attrs({
    'session.id': sessionId,
    'retrieval.documents.0.document.content': 'first',
    'retrieval.documents.1.document.content': 'second',
    'retrieval.documents.2.document.content': 'third',
  }),
});
const child = spanRecord({ traceId, parentId: root.spanId });

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.client = createClient({ options: { baseUrl: ctx.server.baseUrl } });
  await seed(ctx.server, PROJECT, [root, child]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const project = { projectName: PROJECT };

/** Trace and session annotations have no client getter: read them with the typed client's GET. */
const traceAnnotations = async (client: Ctx['client']) =>
  (
    await client.GET('/v1/projects/{project_identifier}/trace_annotations', {
      params: { path: { project_identifier: PROJECT }, query: { trace_ids: [traceId], limit: 100 } },
    })
  ).data!.data;
const sessionAnnotations = async (client: Ctx['client']) =>
  (
    await client.GET('/v1/projects/{project_identifier}/session_annotations', {
      params: { path: { project_identifier: PROJECT }, query: { session_ids: [sessionId], limit: 100 } },
    })
  ).data!.data;

test('addSpanAnnotation (async and sync), then getSpanAnnotations reads it back', async ({ client }) => {
  const queued = await addSpanAnnotation({
    client,
    spanAnnotation: {
      spanId: root.spanId,
      name: 'relevance',
      label: 'relevant',
      score: 0.9,
      annotatorKind: 'LLM',
      metadata: { model: 'judge' },
    },
  });
  assert.is(queued, null);
  const synced = await addSpanAnnotation({
    client,
    sync: true,
    spanAnnotation: { spanId: root.spanId, name: 'relevance', label: 'irrelevant', score: 0.1, annotatorKind: 'LLM', identifier: 'second' },
  });
  assert.ok(synced?.id);
  const { annotations, nextCursor } = await getSpanAnnotations({
    client,
    project,
    spanIds: [root.spanId],
    includeAnnotationNames: ['relevance'],
  });
  assert.is(nextCursor, null);
  assert.equal(
    annotations.map((a) => [a.span_id, a.name, a.result?.label, a.result?.score, a.annotator_kind, a.identifier, a.metadata]),
    [
      [root.spanId, 'relevance', 'irrelevant', 0.1, 'LLM', 'second', {}],
      [root.spanId, 'relevance', 'relevant', 0.9, 'LLM', '', { model: 'judge' }],
    ],
  );
  assert.is(annotations[0]!.id, synced!.id);
});

test('logSpanAnnotations, then getSpanAnnotations pages through them', async ({ client }) => {
  const ids = await logSpanAnnotations({
    client,
    sync: true,
    spanAnnotations: [
      { spanId: root.spanId, name: 'tone', label: 'polite', annotatorKind: 'HUMAN' },
      { spanId: child.spanId, name: 'tone', score: 3, annotatorKind: 'CODE', explanation: 'rule 7' },
    ],
  });
  assert.is(ids.length, 2);
  const first = await getSpanAnnotations({
    client,
    project,
    spanIds: [root.spanId, child.spanId],
    includeAnnotationNames: ['tone'],
    limit: 1,
  });
  assert.ok(first.nextCursor);
  const second = await getSpanAnnotations({
    client,
    project,
    spanIds: [root.spanId, child.spanId],
    includeAnnotationNames: ['tone'],
    limit: 1,
    cursor: first.nextCursor!,
  });
  assert.equal(
    [...first.annotations, ...second.annotations].map((a) => [
      a.span_id,
      a.result?.label ?? null,
      a.result?.score ?? null,
      a.result?.explanation ?? null,
    ]),
    [
      [child.spanId, null, 3, 'rule 7'],
      [root.spanId, 'polite', null, null],
    ],
  );
});

test('addSpanNote twice, then both notes read back', async ({ client }) => {
  const a = await addSpanNote({ client, spanNote: { spanId: root.spanId, note: 'looks off' } });
  const b = await addSpanNote({ client, spanNote: { spanId: root.spanId, note: 'checked again' } });
  assert.ok(a.id && b.id && a.id !== b.id);
  const { annotations } = await getSpanAnnotations({ client, project, spanIds: [root.spanId], includeAnnotationNames: ['note'] });
  assert.equal(annotations.map((n) => n.result?.explanation).sort(), ['checked again', 'looks off']);
});

test('addDocumentAnnotation and logDocumentAnnotations, then the documents carry them', async ({ client, server }) => {
  const one = await addDocumentAnnotation({
    client,
    sync: true,
    documentAnnotation: {
      spanId: root.spanId,
      documentPosition: 0,
      name: 'doc-relevance',
      label: 'relevant',
      score: 1,
      annotatorKind: 'LLM',
    },
  });
  assert.ok(one?.id);
  assert.match(Buffer.from(one!.id, 'base64').toString(), /^DocumentAnnotation:\d+$/);
  await logDocumentAnnotations({
    client,
    documentAnnotations: [
      { spanId: root.spanId, documentPosition: 1, name: 'doc-relevance', label: 'irrelevant', score: 0, annotatorKind: 'LLM' },
      { spanId: root.spanId, documentPosition: 2, name: 'doc-relevance', explanation: 'duplicate of 1', annotatorKind: 'HUMAN' },
    ],
  });
  // The reference has no REST listing of document annotations: read the read model.
  const rows = await annotationsOnTargets(server.pool, 'document', [root.spanId]);
  assert.equal(
    rows.map((r) => [r.document_position, r.label, r.score, r.explanation]),
    [
      [0, 'relevant', 1, null],
      [1, 'irrelevant', 0, null],
      [2, null, null, 'duplicate of 1'],
    ],
  );
});

test('addTraceAnnotation, logTraceAnnotations and addTraceNote, then the trace lists them', async ({ client }) => {
  const added = await addTraceAnnotation({
    client,
    sync: true,
    traceAnnotation: { traceId, name: 'solved', label: 'yes', score: 1, annotatorKind: 'HUMAN' },
  });
  assert.ok(added?.id);
  await logTraceAnnotations({
    client,
    traceAnnotations: [
      { traceId, name: 'cost', score: 0.02, annotatorKind: 'CODE' },
      { traceId, name: 'solved', label: 'no', annotatorKind: 'LLM', identifier: 'llm-judge' },
    ],
  });
  const noted = await addTraceNote({ client, traceNote: { traceId, note: 'escalate' } });
  assert.ok(noted.id);
  const listed = await traceAnnotations(client);
  assert.equal(
    listed
      .map((a) => [
        a.trace_id,
        a.name,
        a.result?.label ?? null,
        a.result?.score ?? null,
        a.identifier?.startsWith('px-trace-note:') ? 'px' : a.identifier,
      ])
      .sort(),
    [
      [traceId, 'cost', null, 0.02, ''],
      [traceId, 'note', null, null, 'px'],
      [traceId, 'solved', 'no', null, 'llm-judge'],
      [traceId, 'solved', 'yes', 1, ''],
    ].sort(),
  );
});

test('addSessionAnnotation, logSessionAnnotations and addSessionNote, then the session lists them', async ({ client }) => {
  const added = await addSessionAnnotation({
    client,
    sync: true,
    sessionAnnotation: { sessionId, name: 'satisfied', label: 'yes', annotatorKind: 'HUMAN' },
  });
  assert.ok(added?.id);
  await logSessionAnnotations({
    client,
    sessionAnnotations: [
      { sessionId, name: 'turns-to-answer', score: 2, annotatorKind: 'CODE' },
      { sessionId, name: 'satisfied', label: 'no', annotatorKind: 'HUMAN' },
    ],
  });
  const noted = await addSessionNote({ client, sessionNote: { sessionId, note: 'user came back', identifier: 'followup' } });
  assert.ok(noted.id);
  const listed = await sessionAnnotations(client);
  assert.equal(
    listed.map((a) => [a.session_id, a.name, a.result?.label ?? null, a.result?.score ?? null, a.result?.explanation ?? null]).sort(),
    [
      [sessionId, 'note', null, null, 'user came back'],
      [sessionId, 'satisfied', 'no', null, null],
      [sessionId, 'turns-to-answer', null, 2, null],
    ].sort(),
  );
});

test.run();
