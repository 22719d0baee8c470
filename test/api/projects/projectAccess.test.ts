import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Credentials, authEnv, callAs, createKey, createUser, login, type Reply } from '../../support/authClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { oneSpanExport } from '../../support/spanIngest.ts';
import { seed } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { rawTraceService } from '../../../ingest/grpcServer.ts';
import { otlpTypesForTests as otlp } from '../../ingest/sampleSpans.ts';

/**
 * Issue 38's done-when, over HTTP with the users an operator would create: an admin restricts
 * "payroll-secret" and grants roles on it; "chatbot-open" stays open. Every answer to someone
 * without a grant is checked not to contain the restricted project's name or its ids.
 */

const SECRET = 'payroll-secret';
const OPEN = 'chatbot-open';

type Ctx = {
  server: TestServer;
  admin: Credentials;
  outsider: Credentials;
  outsiderKey: string;
  viewerGrant: Credentials;
  annotatorGrant: Credentials;
  globalViewer: Credentials;
  globalViewerKey: string;
  ids: Record<'outsider' | 'viewerGrant' | 'annotatorGrant' | 'globalViewer', string>;
  secret: { projectGid: string; traceId: string; spanId: string; sessionId: string; traceGid: string };
  openProject: { traceId: string; spanId: string };
};

const test = suite<Ctx>('per-project access over HTTP', {} as Ctx);

const gql = (server: TestServer, as: Credentials, query: string, variables: Record<string, unknown> = {}) =>
  callAs(server, 'POST', '/graphql', { as, json: { query, variables } });

/**
 * Nothing in the answer names the restricted project; with `ids`, nor carries its id or any of its
 * traces', spans' or sessions' (a not-found answer may repeat the id the caller sent, as it does for
 * one that never existed).
 */
const namesNothing = (ctx: Ctx, reply: Reply, where: string, ids = true) => {
  const text = JSON.stringify(reply.body);
  const s = ctx.secret;
  for (const secret of [SECRET, ...(ids ? [s.projectGid, s.traceId, s.spanId, s.sessionId, s.traceGid] : [])])
    assert.not.ok(text.includes(secret), `${where} names ${secret}: ${text.slice(0, 300)}`);
};

const spansOf = async (ctx: Ctx, project: string) =>
  (await callAs(ctx.server, 'GET', `/v1/projects/${project}/spans`, { as: ctx.admin })).body?.data?.length ?? 0;

const exportAs = (ctx: Ctx, key: string, project: string) =>
  fetch(ctx.server.otlpHttpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: oneSpanExport(project),
  });

/** One span exported over OTLP gRPC into `project` with the key as bearer; the exporter's error or null. */
const grpcExportAs = (ctx: Ctx, key: string, project: string) =>
  new Promise<grpc.ServiceError | null>((resolve) => {
    const Client = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');
    const client = new Client(`127.0.0.1:${ctx.server.grpcPort}`, grpc.credentials.createInsecure());
    const request = otlp.request.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'openinference.project.name', value: { stringValue: project } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: randomBytes(16),
                  spanId: randomBytes(8),
                  name: 'g',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000000000001',
                },
              ],
            },
          ],
        },
      ],
    });
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${key}`);
    (client as unknown as { Export: (b: Buffer, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void }).Export(
      Buffer.from(otlp.request.encode(request).finish()),
      metadata,
      (e) => {
        client.close();
        resolve(e);
      },
    );
  });

const grant = (ctx: Ctx, who: string, role: string, as = ctx.admin) =>
  callAs(ctx.server, 'PUT', `/v1/projects/${SECRET}/grants/${who}`, { as, json: { role } });

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  const secretBearer: Credentials = { bearer: env.SERVICE_ADMIN_SECRET };
  ctx.admin = await login(ctx.server, 'admin@localhost', 'admin');
  const users = [
    ['outsider', 'MEMBER'],
    ['viewerGrant', 'MEMBER'],
    ['annotatorGrant', 'MEMBER'],
    ['globalViewer', 'VIEWER'],
  ] as const;
  ctx.ids = {} as Ctx['ids'];
  for (const [name, role] of users) {
    ctx.ids[name] = await createUser(ctx.server, secretBearer, {
      email: `${name}@example.com`,
      username: name,
      role,
      password: `${name}-pw`,
    });
    (ctx as unknown as Record<string, Credentials>)[name] = await login(ctx.server, `${name}@example.com`, `${name}-pw`);
  }
  ctx.outsiderKey = (await createKey(ctx.server, ctx.outsider, 'user')).key;
  ctx.globalViewerKey = (await createKey(ctx.server, ctx.globalViewer, 'user')).key;

  const secretTrace = newTraceId();
  const secretSpan = spanRecord({
    traceId: secretTrace,
    attributes: attrs({ 'session.id': 'payroll-session-1', 'input.value': 'salary' }),
  });
  await seed(ctx.server, SECRET, [secretSpan]);
  const openTrace = newTraceId();
  const openSpan = spanRecord({ traceId: openTrace, attributes: attrs({ 'input.value': 'hello' }) });
  await seed(ctx.server, OPEN, [openSpan]);
  const project = await callAs(ctx.server, 'GET', `/v1/projects/${SECRET}`, { as: ctx.admin });
  const traces = await callAs(ctx.server, 'GET', `/v1/projects/${SECRET}/traces`, { as: ctx.admin });
  ctx.secret = {
    projectGid: project.body.data.id,
    traceId: secretTrace,
    spanId: secretSpan.spanId,
    sessionId: 'payroll-session-1',
    traceGid: traces.body.data[0].id,
  };
  ctx.openProject = { traceId: openTrace, spanId: openSpan.spanId };
});

test.after(async (ctx) => {
  await ctx.server.close();
});

test('only an admin restricts and grants: a member gets 403, an unknown role 422, an unknown user 404; each change is in the audit trail', async (ctx) => {
  const { server, admin, outsider, ids } = ctx;
  const memberRestricts = await callAs(server, 'PUT', `/v1/projects/${SECRET}`, { as: outsider, json: { restricted: true } });
  assert.is(memberRestricts.status, 403);
  assert.is((await grant(ctx, ids.viewerGrant, 'VIEWER', outsider)).status, 403);
  assert.is((await callAs(server, 'GET', `/v1/projects/${SECRET}/grants`, { as: outsider })).status, 403);

  const restricted = await callAs(server, 'PUT', `/v1/projects/${SECRET}`, { as: admin, json: { restricted: true } });
  assert.is(restricted.status, 200, JSON.stringify(restricted.body));
  assert.is(restricted.body.data.restricted, true);

  const unknownRole = await grant(ctx, ids.viewerGrant, 'OWNER');
  assert.is(unknownRole.status, 422);
  assert.is(unknownRole.body.code, 'invalid_role');
  assert.is((await grant(ctx, 'VXNlcjpub2JvZHk=', 'VIEWER')).status, 404);

  assert.is((await grant(ctx, ids.viewerGrant, 'VIEWER')).status, 200);
  const annotator = await grant(ctx, ids.annotatorGrant, 'ANNOTATOR');
  assert.is(annotator.status, 200);
  assert.is(annotator.body.data.role, 'ANNOTATOR');
  assert.is((await grant(ctx, ids.globalViewer, 'MEMBER')).status, 200);

  const listed = await callAs(server, 'GET', `/v1/projects/${SECRET}/grants`, { as: admin });
  assert.equal(listed.body.data.map((g: { username: string; role: string }) => `${g.username}:${g.role}`).sort(), [
    'annotatorGrant:ANNOTATOR',
    'globalViewer:MEMBER',
    'viewerGrant:VIEWER',
  ]);
  const audit = await callAs(server, 'GET', '/v1/audit/events?type=ProjectGrantSet', { as: admin });
  assert.is(audit.status, 200);
  assert.is(audit.body.data.length, 3, JSON.stringify(audit.body).slice(0, 300));
  const restrictions = await callAs(server, 'GET', '/v1/audit/events?type=ProjectRestrictionSet', { as: admin });
  assert.is(restrictions.body.data.length, 1);
});

test('a member without a grant sees the open project, not the restricted one, in REST and GraphQL; everything of it is 404 or null and nothing names it', async (ctx) => {
  const { server, outsider, secret } = ctx;
  const list = await callAs(server, 'GET', '/v1/projects', { as: outsider });
  assert.ok(list.body.data.some((p: { name: string }) => p.name === OPEN));
  namesNothing(ctx, list, 'GET /v1/projects');
  const graph = await gql(server, outsider, '{ projects { edges { node { name } } } }');
  assert.ok(JSON.stringify(graph.body).includes(OPEN));
  namesNothing(ctx, graph, 'GraphQL projects');

  for (const path of [
    `/v1/projects/${SECRET}`,
    `/v1/projects/${secret.projectGid}`,
    `/v1/projects/${SECRET}/spans`,
    `/v1/projects/${SECRET}/traces`,
    `/v1/projects/${SECRET}/sessions`,
    `/v1/sessions/${secret.sessionId}`,
    `/v1/sessions/${secret.sessionId}/turns`,
  ]) {
    const reply = await callAs(server, 'GET', path, { as: outsider });
    assert.is(reply.status, 404, `GET ${path}`);
    namesNothing(ctx, reply, `GET ${path}`, false);
  }
  for (const path of [`/v1/traces/${secret.traceId}`, `/v1/spans/${secret.spanId}`, `/v1/sessions/${secret.sessionId}`]) {
    const reply = await callAs(server, 'DELETE', path, { as: outsider });
    assert.is(reply.status, 404, `DELETE ${path}`);
    namesNothing(ctx, reply, `DELETE ${path}`, false);
  }
  for (const id of [secret.projectGid, secret.traceGid]) {
    const node = await gql(server, outsider, 'query($id: ID!) { node(id: $id) { id } }', { id });
    assert.is(node.body.data?.node ?? null, null, `node(${id})`);
    namesNothing(ctx, node, 'node(id:)', false);
  }
  // A retention policy the restricted project has is listed without it.
  const policy = await callAs(server, 'POST', '/v1/trace_retention_policies', {
    as: ctx.admin,
    json: { name: 'keep 1000', max_traces: 1000 },
  });
  assert.is(policy.status, 201, JSON.stringify(policy.body));
  const assigned = await callAs(server, 'PUT', `/v1/projects/${SECRET}/trace_retention_policy`, {
    as: ctx.admin,
    json: { policy_id: policy.body.data.id },
  });
  assert.is(assigned.status, 200, JSON.stringify(assigned.body));
  const policies = await callAs(server, 'GET', '/v1/trace_retention_policies', { as: outsider });
  assert.is(policies.status, 200);
  namesNothing(ctx, policies, 'GET /v1/trace_retention_policies');
  const graphPolicies = await gql(
    server,
    outsider,
    '{ projectTraceRetentionPolicies { edges { node { name projects { edges { node { name } } } } } } }',
  );
  assert.ok(JSON.stringify(graphPolicies.body).includes('keep 1000'), JSON.stringify(graphPolicies.body));
  namesNothing(ctx, graphPolicies, 'GraphQL projectTraceRetentionPolicies');
  const bySpan = await gql(server, outsider, 'query($s: String!) { getSpanByOtelId(spanId: $s) { name } }', { s: secret.spanId });
  assert.is(bySpan.body.data.getSpanByOtelId, null);
  const byName = await gql(server, outsider, 'query($n: String!) { getProjectByName(name: $n) { name } }', { n: SECRET });
  assert.is(byName.body.data.getProjectByName, null);
  // The trace is still there for the admin.
  assert.is(await spansOf(ctx, SECRET), 1);
});

test("that member's user key exporting into the restricted project gets 403 and nothing is stored; into the open project it works", async (ctx) => {
  const refused = await exportAs(ctx, ctx.outsiderKey, SECRET);
  assert.is(refused.status, 403);
  assert.not.ok((await refused.text()).includes(SECRET));
  const accepted = await exportAs(ctx, ctx.outsiderKey, OPEN);
  assert.is(accepted.status, 200);
  // The same over gRPC: PERMISSION_DENIED into it, accepted into the open project.
  const overGrpc = await grpcExportAs(ctx, ctx.outsiderKey, SECRET);
  assert.is(overGrpc?.code, grpc.status.PERMISSION_DENIED);
  assert.not.ok(overGrpc?.message.includes(SECRET));
  assert.is(await grpcExportAs(ctx, ctx.outsiderKey, OPEN), null);
  assert.is(await spansOf(ctx, SECRET), 1, 'nothing stored in the restricted project');
});

test('a VIEWER grant reads but cannot annotate; an ANNOTATOR grant annotates but cannot delete a trace; a MEMBER grant held by a global viewer exports into it', async (ctx) => {
  const { server, viewerGrant, annotatorGrant, secret } = ctx;
  const note = { data: { span_id: secret.spanId, note: 'looks wrong' } };
  assert.is((await callAs(server, 'GET', `/v1/projects/${SECRET}/spans`, { as: viewerGrant })).status, 200);
  const viewerNotes = await callAs(server, 'POST', '/v1/span_notes', { as: viewerGrant, json: note });
  assert.is(viewerNotes.status, 403, JSON.stringify(viewerNotes.body));
  const viewerDeletes = await callAs(server, 'DELETE', `/v1/traces/${secret.traceId}`, { as: viewerGrant });
  assert.is(viewerDeletes.status, 403);

  const annotatorNotes = await callAs(server, 'POST', '/v1/span_notes', { as: annotatorGrant, json: note });
  assert.is(annotatorNotes.status, 200, JSON.stringify(annotatorNotes.body));
  const annotated = await callAs(server, 'POST', '/v1/span_annotations?sync=true', {
    as: annotatorGrant,
    json: { data: [{ span_id: secret.spanId, name: 'quality', annotator_kind: 'HUMAN', result: { label: 'bad' } }] },
  });
  assert.is(annotated.status, 200, JSON.stringify(annotated.body));
  const annotatorDeletes = await callAs(server, 'DELETE', `/v1/traces/${secret.traceId}`, { as: annotatorGrant });
  assert.is(annotatorDeletes.status, 403);
  // The annotator's global role (MEMBER) still deletes in open projects.
  assert.is((await callAs(server, 'DELETE', `/v1/spans/${ctx.openProject.spanId}`, { as: annotatorGrant })).status, 204);

  const viewerExports = await exportAs(ctx, ctx.globalViewerKey, SECRET);
  assert.is(viewerExports.status, 200, await viewerExports.text());
  // Its global role still does not ingest elsewhere.
  assert.is((await exportAs(ctx, ctx.globalViewerKey, OPEN)).status, 403);
  const deleted = await callAs(server, 'DELETE', `/v1/spans/${secret.spanId}`, { as: ctx.globalViewer });
  assert.is(deleted.status, 204, JSON.stringify(deleted.body));
});

test('revoking a grant hides the project again at once; opening the project shows it to everyone', async (ctx) => {
  const { server, admin, viewerGrant, ids, outsider } = ctx;
  assert.is((await callAs(server, 'GET', `/v1/projects/${SECRET}`, { as: viewerGrant })).status, 200);
  assert.is((await callAs(server, 'DELETE', `/v1/projects/${SECRET}/grants/${ids.viewerGrant}`, { as: admin })).status, 204);
  assert.is((await callAs(server, 'GET', `/v1/projects/${SECRET}`, { as: viewerGrant })).status, 404);
  const list = await callAs(server, 'GET', '/v1/projects', { as: viewerGrant });
  namesNothing(ctx, list, 'GET /v1/projects after revoking');
  assert.is((await callAs(server, 'DELETE', `/v1/projects/${SECRET}/grants/${ids.viewerGrant}`, { as: admin })).status, 404);

  assert.is((await callAs(server, 'PUT', `/v1/projects/${SECRET}`, { as: admin, json: { restricted: false } })).status, 200);
  assert.is((await callAs(server, 'GET', `/v1/projects/${SECRET}`, { as: outsider })).status, 200);
});

test.run();
