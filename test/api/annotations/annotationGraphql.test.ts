import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createKey, createUser, login, type Credentials } from '../../support/authClient.ts';
import { seed } from '../../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from '../graphql/gqlClient.ts';

type Ctx = {
  server: TestServer;
  admin: Credentials;
  alice: Credentials;
  bob: Credentials;
  viewer: Credentials;
  aliceId: string;
  aliceKey: string;
};
const test = suite<Ctx>('annotations over GraphQL: panels, authors, edit own, delete by role', {} as Ctx);

const traceId = newTraceId();
const root = spanRecord({ traceId, name: 'agent', attributes: attrs({ 'session.id': 'gql-session' }) });

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  const password = 'Passw0rd!-long-enough';
  ctx.aliceId = await createUser(ctx.server, ctx.admin, { email: 'alice@example.com', username: 'alice', role: 'MEMBER', password });
  await createUser(ctx.server, ctx.admin, { email: 'bob@example.com', username: 'bob', role: 'MEMBER', password });
  await createUser(ctx.server, ctx.admin, { email: 'vera@example.com', username: 'vera', role: 'VIEWER', password });
  ctx.alice = await login(ctx.server, 'alice@example.com', password);
  ctx.bob = await login(ctx.server, 'bob@example.com', password);
  ctx.viewer = await login(ctx.server, 'vera@example.com', password);
  ctx.aliceKey = (await createKey(ctx.server, ctx.alice, 'user')).key;
  await seed(ctx.server, 'gql-annotations', [root]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const CREATE = `mutation($input: [AnnotationInput!]!) { createAnnotations(input: $input) { id name label score annotatorKind source userId target targetId } }`;
const PANEL = `query($s: String!) { getSpanByOtelId(spanId: $s) {
  spanAnnotations { id name label score userId source } spanNotes { explanation } documentAnnotations { documentPosition label }
  trace { traceAnnotations { name label } traceNotes { explanation } }
  project { spanAnnotationSummaries { name count meanScore labels { label count } } }
} }`;

test('a member annotates and notes in the app; the span panel, the trace and the project summary show it, authored by her', async ({
  server,
  alice,
  aliceId,
}) => {
  const created = dataOf(
    await gql(
      server,
      CREATE,
      {
        input: [
          { target: 'span', targetId: root.spanId, name: 'correctness', label: 'correct', score: 1 },
          { target: 'document', targetId: root.spanId, documentPosition: 1, name: 'relevance', label: 'relevant' },
          { target: 'trace', targetId: traceId, name: 'solved', label: 'yes' },
        ],
      },
      alice,
    ),
  ).createAnnotations;
  assert.equal(
    created.map((a: Record<string, unknown>) => [a.name, a.target, a.source, a.userId, a.annotatorKind]),
    [
      ['correctness', 'span', 'APP', aliceId, 'HUMAN'],
      ['relevance', 'document', 'APP', aliceId, 'HUMAN'],
      ['solved', 'trace', 'APP', aliceId, 'HUMAN'],
    ],
  );
  dataOf(
    await gql(
      server,
      `mutation($t: ID!) { createNote(target: span, targetId: $t, note: "why so slow?") { name } }`,
      { t: root.spanId },
      alice,
    ),
  );
  dataOf(
    await gql(server, `mutation($t: ID!) { createNote(target: trace, targetId: $t, note: "escalated") { name } }`, { t: traceId }, alice),
  );
  const span = dataOf(await gql(server, PANEL, { s: root.spanId }, alice)).getSpanByOtelId;
  assert.equal(
    span.spanAnnotations.map((a: { name: string; label: string }) => [a.name, a.label]),
    [['correctness', 'correct']],
  );
  assert.equal(span.spanNotes, [{ explanation: 'why so slow?' }]);
  assert.equal(span.documentAnnotations, [{ documentPosition: 1, label: 'relevant' }]);
  assert.equal(span.trace.traceAnnotations, [{ name: 'solved', label: 'yes' }]);
  assert.equal(span.trace.traceNotes, [{ explanation: 'escalated' }]);
  assert.equal(span.project.spanAnnotationSummaries, [
    { name: 'correctness', count: 1, meanScore: 1, labels: [{ label: 'correct', count: 1 }] },
  ]);
});

test('an annotation sent with a user API key is its owner’s', async ({ server, aliceKey, aliceId }) => {
  const r = await callAs(server, 'POST', '/v1/span_annotations?sync=true', {
    as: { bearer: aliceKey },
    json: { data: [{ span_id: root.spanId, name: 'by-key', annotator_kind: 'CODE', result: { score: 0.5 } }] },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const listed = await callAs(
    server,
    'GET',
    `/v1/projects/gql-annotations/span_annotations?span_ids=${root.spanId}&include_annotation_names=by-key`,
    {
      as: { bearer: aliceKey },
    },
  );
  assert.equal(
    listed.body.data.map((a: { user_id: string; source: string }) => [a.user_id, a.source]),
    [[aliceId, 'API']],
  );
});

test('only the author edits; another member may not delete it, an admin may; a viewer may not annotate', async ({
  server,
  alice,
  bob,
  admin,
  viewer,
}) => {
  const [mine] = dataOf(
    await gql(server, CREATE, { input: [{ target: 'span', targetId: root.spanId, name: 'tone', label: 'rude' }] }, alice),
  ).createAnnotations;
  const patch = `mutation($p: [AnnotationPatch!]!) { patchAnnotations(patches: $p) { id label score } }`;
  assert.equal(errorCodes(await gql(server, patch, { p: [{ id: mine.id, label: 'kind' }] }, bob)), ['forbidden']);
  const patched = dataOf(await gql(server, patch, { p: [{ id: mine.id, label: 'kind', score: 0.8 }] }, alice)).patchAnnotations;
  assert.equal(patched, [{ id: mine.id, label: 'kind', score: 0.8 }]);
  const del = `mutation($ids: [ID!]!) { deleteAnnotations(ids: $ids) { deletedIds } }`;
  assert.equal(errorCodes(await gql(server, del, { ids: [mine.id] }, bob)), ['forbidden']);
  assert.equal(dataOf(await gql(server, del, { ids: [mine.id] }, admin)).deleteAnnotations.deletedIds, [mine.id]);
  assert.equal(errorCodes(await gql(server, del, { ids: [mine.id] }, admin)), ['annotation_not_found']);
  const refused = await gql(server, CREATE, { input: [{ target: 'span', targetId: root.spanId, name: 'x', label: 'y' }] }, viewer);
  assert.equal(errorCodes(refused), ['viewer_forbidden']);
});

test('bad input over GraphQL names the argument and index; the configs query lists configs', async ({ server, alice, admin }) => {
  const bad = await gql(
    server,
    CREATE,
    {
      input: [
        { target: 'span', targetId: root.spanId, name: 'ok', label: 'y' },
        { target: 'span', targetId: root.spanId, name: 'empty' },
      ],
    },
    alice,
  );
  assert.equal(errorCodes(bad), ['invalid_annotation']);
  assert.match(bad.body.errors[0].message, /input\.1\.result/);
  const made = await callAs(server, 'POST', '/v1/annotation_configs', {
    as: admin,
    json: { name: 'gql-quality', type: 'CATEGORICAL', optimization_direction: 'MAXIMIZE', values: [{ label: 'good', score: 1 }] },
  });
  assert.is(made.status, 200, JSON.stringify(made.body));
  const configs = dataOf(
    await gql(server, `{ annotationConfigs(nameContains: "gql-") { id name type values { label score } } }`, {}, alice),
  ).annotationConfigs;
  assert.equal(configs, [{ id: made.body.data.id, name: 'gql-quality', type: 'CATEGORICAL', values: [{ label: 'good', score: 1 }] }]);
});

test('the traces and spans tables filter by annotation name, label and score, with pages', async ({ server, alice }) => {
  const traces = [newTraceId(), newTraceId(), newTraceId()];
  const spans = traces.map((t) => spanRecord({ traceId: t, name: 'turn' }));
  await seed(server, 'gql-filter', spans);
  dataOf(
    await gql(
      server,
      CREATE,
      {
        input: [
          { target: 'span', targetId: spans[0]!.spanId, name: 'verdict', label: 'good', score: 0.9 },
          { target: 'span', targetId: spans[1]!.spanId, name: 'verdict', label: 'bad', score: 0.1 },
          { target: 'trace', targetId: traces[2], name: 'verdict', label: 'good', score: 0.6 },
        ],
      },
      alice,
    ),
  );
  const query = `query($f: AnnotationFilter!, $after: String) { getProjectByName(name: "gql-filter") {
    annotatedTraces(annotation: $f, first: 1, after: $after) { edges { node { traceId } } pageInfo { hasNextPage endCursor } }
    annotatedSpans(annotation: $f, first: 10) { edges { node { spanId } } }
  } }`;
  const good = { name: 'verdict', labels: ['good'] };
  const first = dataOf(await gql(server, query, { f: good }, alice)).getProjectByName;
  assert.is(first.annotatedTraces.pageInfo.hasNextPage, true);
  const second = dataOf(await gql(server, query, { f: good, after: first.annotatedTraces.pageInfo.endCursor }, alice)).getProjectByName;
  assert.is(second.annotatedTraces.pageInfo.hasNextPage, false);
  assert.equal(
    [...first.annotatedTraces.edges, ...second.annotatedTraces.edges].map((e: { node: { traceId: string } }) => e.node.traceId).sort(),
    [traces[0], traces[2]].sort(),
  );
  assert.equal(
    first.annotatedSpans.edges.map((e: { node: { spanId: string } }) => e.node.spanId),
    [spans[0]!.spanId],
  );
  const scored = dataOf(await gql(server, query, { f: { name: 'verdict', minScore: 0.5, maxScore: 0.7 } }, alice)).getProjectByName;
  assert.equal(
    scored.annotatedTraces.edges.map((e: { node: { traceId: string } }) => e.node.traceId),
    [traces[2]],
  );
  assert.equal(scored.annotatedSpans.edges, []);
});

test('the settings page creates, edits, assigns and deletes configs; the project shows its configs', async ({ server, alice, viewer }) => {
  const create = `mutation($i: AnnotationConfigInput!) { createAnnotationConfig(input: $i) { id name type optimizationDirection values { label score } lowerBound upperBound } }`;
  const made = dataOf(
    await gql(
      server,
      create,
      {
        i: {
          type: 'CATEGORICAL',
          name: 'gql-verdict',
          optimizationDirection: 'MAXIMIZE',
          values: [
            { label: 'pass', score: 1 },
            { label: 'fail', score: 0 },
          ],
        },
      },
      alice,
    ),
  ).createAnnotationConfig;
  assert.equal(made.values, [
    { label: 'pass', score: 1 },
    { label: 'fail', score: 0 },
  ]);
  assert.equal(
    errorCodes(
      await gql(
        server,
        create,
        { i: { type: 'CATEGORICAL', name: 'gql-verdict', optimizationDirection: 'NONE', values: [{ label: 'a' }] } },
        alice,
      ),
    ),
    ['annotation_config_exists'],
  );
  assert.equal(
    errorCodes(
      await gql(
        server,
        create,
        { i: { type: 'CATEGORICAL', name: 'dups', optimizationDirection: 'NONE', values: [{ label: 'a' }, { label: 'a' }] } },
        alice,
      ),
    ),
    ['invalid_annotation_config'],
  );
  assert.equal(errorCodes(await gql(server, create, { i: { type: 'CONTINUOUS', name: 'nodir' } }, alice)), ['invalid_input']);
  assert.equal(errorCodes(await gql(server, create, { i: { type: 'FREEFORM', name: 'v' } }, viewer)), ['viewer_forbidden']);
  const updated = dataOf(
    await gql(
      server,
      `mutation($id: ID!, $i: AnnotationConfigInput!) { updateAnnotationConfig(id: $id, input: $i) { id type lowerBound upperBound } }`,
      { id: made.id, i: { type: 'CONTINUOUS', name: 'gql-verdict', optimizationDirection: 'MINIMIZE', lowerBound: 0, upperBound: 5 } },
      alice,
    ),
  ).updateAnnotationConfig;
  // The same row; its global id names its new type (any of the three finds it).
  const rowOf = (id: string) => Buffer.from(id, 'base64').toString().split(':')[1];
  assert.equal({ ...updated, id: rowOf(updated.id) }, { id: rowOf(made.id), type: 'CONTINUOUS', lowerBound: 0, upperBound: 5 });
  assert.match(Buffer.from(updated.id, 'base64').toString(), /^ContinuousAnnotationConfig:/);
  const set = dataOf(
    await gql(
      server,
      `mutation($ids: [ID!]!) { setProjectAnnotationConfigs(projectId: "gql-annotations", configIds: $ids) { name } }`,
      { ids: [made.id] },
      alice,
    ),
  ).setProjectAnnotationConfigs;
  assert.equal(set, [{ name: 'gql-verdict' }]);
  const shown = dataOf(await gql(server, `{ getProjectByName(name: "gql-annotations") { annotationConfigs { name } } }`, {}, alice))
    .getProjectByName.annotationConfigs;
  assert.equal(shown, [{ name: 'gql-verdict' }]);
  const deleted = dataOf(
    await gql(server, `mutation($id: ID!) { deleteAnnotationConfig(id: $id) { name } }`, { id: made.id }, alice),
  ).deleteAnnotationConfig;
  assert.equal(deleted, { name: 'gql-verdict' });
  assert.equal(
    dataOf(await gql(server, `{ getProjectByName(name: "gql-annotations") { annotationConfigs { name } } }`, {}, alice)).getProjectByName
      .annotationConfigs,
    [],
  );
});

test.run();
