import * as grpc from '@grpc/grpc-js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RouteDef } from '../../../api/http/route.ts';
import { authorize } from '../../../domain/access/authorize.ts';
import type { GrantRole } from '../../../domain/access/grantRole.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { onProject, widenedByGrant } from '../../../domain/access/projectStanding.ts';
import { restPermission } from '../../../domain/access/restPermission.ts';
import { rawTraceService } from '../../../ingest/grpcServer.ts';
import { authEnv, callAs, createKey, createUser, login, type Credentials } from '../../support/authClient.ts';
import { type Caller, serverWithEveryCaller } from '../../support/everyCaller.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * Every registered `/v1` route × every kind of caller, against THE permission table: a denied
 * caller gets exactly the status and code `authorize` gives for the route's declared permission;
 * an allowed one never gets an authorization answer. Routes are read from the running app, so a
 * route added later is checked without touching this file; one declaring a permission other than
 * the table's (or none) fails.
 */

// What authorize answers with; a handler's own 403 (e.g. deleting a built-in user) has other codes.
const AUTHZ_CODES = new Set([
  'unauthenticated',
  'auth_disabled',
  'admin_secret_forbidden',
  'api_key_forbidden',
  'system_key_forbidden',
  'admin_required',
  'viewer_forbidden',
  'forbidden',
]);

const v1Routes = (server: TestServer): RouteDef[] => server.app.routes.filter((r) => r.path.startsWith('/v1/') || r.path === '/v1');

/** Path parameters get a value no resource has, so allowed calls fail on validation or lookup, not on access. */
const concrete = (path: string): string => path.replace(/:[A-Za-z0-9_]+/g, 'bogus-id');

const send = (server: TestServer, route: RouteDef, as: Credentials | undefined) =>
  callAs(server, route.method, concrete(route.path), { as, ...(route.method === 'GET' ? {} : { json: {} }) });

const expectOutcome = (route: RouteDef, caller: Caller, reply: { status: number; body: { code?: string } | null }) => {
  const where = `${route.method} ${route.path} as ${caller.name}`;
  // The table's permission, not the route's own declaration: a mis-declared route fails here too.
  const decision = authorize(caller.principal, restPermission(route.method, route.path));
  if (decision.allowed) {
    assert.ok(reply.status !== 401, `${where}: allowed by the table, got 401`);
    assert.ok(
      !(reply.status === 403 && AUTHZ_CODES.has(reply.body?.code ?? '')),
      `${where}: allowed by the table, got 403 ${reply.body?.code}`,
    );
  } else {
    assert.is(reply.status, decision.status, `${where}: status`);
    assert.is(reply.body?.code, decision.code, `${where}: code`);
  }
};

const RawClient = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');

/** An empty ExportTraceServiceRequest over gRPC with the caller's bearer in `authorization` metadata. */
const grpcExport = (port: number, as: Credentials | undefined) =>
  new Promise<grpc.ServiceError | null>((resolve) => {
    const client = new RawClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    if (as?.bearer !== undefined) metadata.set('authorization', `Bearer ${as.bearer}`);
    (client as unknown as { Export: (b: Buffer, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void }).Export(
      Buffer.alloc(0),
      metadata,
      (error) => {
        client.close();
        resolve(error);
      },
    );
  });

type Ctx = { server: TestServer; callers: Caller[] };
const test = suite<Ctx>('route matrix, auth on', {} as Ctx);

test.before(async (ctx) => {
  Object.assign(ctx, await serverWithEveryCaller());
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('every /v1 route declares the permission the table gives it', ({ server }) => {
  const routes = v1Routes(server);
  assert.ok(routes.length >= 15, `only ${routes.length} /v1 routes registered`);
  for (const route of routes) {
    assert.is.not(route.permission, 'public', `${route.method} ${route.path} has no permission declared`);
    assert.is(route.permission, restPermission(route.method, route.path), `${route.method} ${route.path} declares ${route.permission}`);
  }
  assert.ok(
    routes.some((r) => r.method === 'POST' && r.path === '/v1/traces'),
    'OTLP over HTTP is a registered /v1 route',
  );
});

test('every /v1 route × every caller answers as the permission table says', async ({ server, callers }) => {
  for (const route of v1Routes(server)) {
    for (const caller of callers) expectOutcome(route, caller, await send(server, route, caller.as));
  }
});

test('OTLP over HTTP on the dedicated port follows the ingest permission', async ({ server, callers }) => {
  const route = server.app.routes.find((r) => r.method === 'POST' && r.path === '/v1/traces')!;
  for (const caller of callers) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (caller.as?.bearer !== undefined) headers.authorization = `Bearer ${caller.as.bearer}`;
    if (caller.as?.cookie !== undefined) headers.cookie = caller.as.cookie;
    const res = await fetch(server.otlpHttpUrl, { method: 'POST', headers, body: '{}' });
    expectOutcome(route, caller, { status: res.status, body: (await res.json()) as { code?: string } });
  }
});

test('OTLP over gRPC: UNAUTHENTICATED without a valid bearer, PERMISSION_DENIED for viewers, accepted otherwise', async ({
  server,
  callers,
}) => {
  for (const caller of callers.filter((c) => c.as?.cookie === undefined)) {
    const error = await grpcExport(server.grpcPort, caller.as);
    const decision = authorize(caller.principal, 'ingest');
    if (decision.allowed) assert.is(error, null, `gRPC as ${caller.name}: ${error?.message}`);
    else
      assert.is(
        error?.code,
        decision.status === 401 ? grpc.status.UNAUTHENTICATED : grpc.status.PERMISSION_DENIED,
        `gRPC as ${caller.name}`,
      );
  }
  // A viewer's key: authenticated, but viewers may not ingest.
  const viewer = await login(server, 'viewer@example.com', 'viewer-pw');
  const viewerKey = await createKey(server, viewer, 'user');
  assert.is((await grpcExport(server.grpcPort, { bearer: viewerKey.key }))?.code, grpc.status.PERMISSION_DENIED);
  assert.is((await grpcExport(server.grpcPort, { bearer: `lpk_nope_${'x'.repeat(43)}` }))?.code, grpc.status.UNAUTHENTICATED);
  // The session's access token is a bearer too (the reference accepts it on gRPC).
  assert.is(await grpcExport(server.grpcPort, { bearer: (await login(server, 'member@example.com', 'member-pw')).access }), null);
});

test.run();

const open = suite<{ server: TestServer }>('route matrix, auth off', {} as { server: TestServer });
open.before(async (ctx) => {
  ctx.server = await startTestServer();
});
open.after(async (ctx) => {
  await ctx.server.close();
});

open('with auth off everything is open except what issues or lists credentials (403)', async ({ server }) => {
  const anonymous: Caller = { name: 'anonymous (auth off)', as: undefined, principal: { kind: 'anonymous' } };
  for (const route of v1Routes(server)) expectOutcome(route, anonymous, await send(server, route, undefined));
  assert.is(await grpcExport(server.grpcPort, undefined), null);
});

open.run();

/**
 * The project dimension (issue 38): every registered `/v1` route called with `{project_identifier}`
 * naming a RESTRICTED project, as an outsider (a member with no grant) and as a VIEWER, an
 * ANNOTATOR and a MEMBER grant (the last held by a global viewer, so the grant both narrows and
 * widens). The expectation comes from the table alone (`authorize`, `widenedByGrant`, `onProject`):
 * a route added later is walked without touching this file.
 */
type Grantee = { readonly name: string; readonly as: Credentials; readonly principal: Principal; readonly grant: GrantRole | null };
type Restricted = { server: TestServer; callers: Grantee[] };
const restricted = suite<Restricted>('route matrix, a restricted project × its grants', {} as Restricted);
const RESTRICTED = 'walk-restricted';

restricted.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  const secret: Credentials = { bearer: env.SERVICE_ADMIN_SECRET };
  const admin = await login(ctx.server, 'admin@localhost', 'admin');
  await callAs(ctx.server, 'POST', '/v1/projects', { as: admin, json: { name: RESTRICTED } });
  const restrict = await callAs(ctx.server, 'PUT', `/v1/projects/${RESTRICTED}`, { as: admin, json: { restricted: true } });
  assert.is(restrict.status, 200);
  const people = [
    ['outsider', 'MEMBER', null],
    ['viewer grant', 'MEMBER', 'VIEWER'],
    ['annotator grant', 'MEMBER', 'ANNOTATOR'],
    ['member grant (global viewer)', 'VIEWER', 'MEMBER'],
  ] as const;
  ctx.callers = [];
  for (const [i, [name, role, grant]] of people.entries()) {
    const id = await createUser(ctx.server, secret, {
      email: `walk${i}@example.com`,
      username: `walk${i}`,
      role,
      password: `walk-pw-${i}`,
    });
    if (grant !== null) {
      const granted = await callAs(ctx.server, 'PUT', `/v1/projects/${RESTRICTED}/grants/${id}`, { as: admin, json: { role: grant } });
      assert.is(granted.status, 200);
    }
    const session = await login(ctx.server, `walk${i}@example.com`, `walk-pw-${i}`);
    ctx.callers.push({ name, as: { cookie: session.cookie }, principal: { kind: 'user', userId: id, role }, grant });
  }
});
restricted.after(async (ctx) => {
  await ctx.server.close();
});

restricted(
  'every /v1 route × outsider, VIEWER, ANNOTATOR and MEMBER grants on a restricted project answers as the table says',
  async ({ server, callers }) => {
    const onRestricted = v1Routes(server).filter((r) => r.path.includes(':project_identifier'));
    assert.ok(onRestricted.length >= 10, `only ${onRestricted.length} routes act on a project`);
    for (const route of v1Routes(server)) {
      const path = route.path.replace(':project_identifier', RESTRICTED).replace(/:[A-Za-z0-9_]+/g, 'bogus-id');
      const permission = restPermission(route.method, route.path);
      for (const caller of callers) {
        const where = `${route.method} ${route.path} as ${caller.name}`;
        const reply = await callAs(server, route.method, path, { as: caller.as, ...(route.method === 'GET' ? {} : { json: {} }) });
        const global = authorize(caller.principal, permission);
        const widened = widenedByGrant(caller.principal, permission, caller.grant === null ? [] : [caller.grant]);
        if (!global.allowed && !widened) {
          assert.is(reply.status, global.status, `${where}: status`);
          assert.is(reply.body?.code, global.code, `${where}: code`);
          continue;
        }
        assert.not.ok(JSON.stringify(reply.body ?? '').includes(RESTRICTED) && caller.grant === null, `${where}: names the project`);
        if (!route.path.includes(':project_identifier')) {
          // Not about one project: its lookups of bogus ids decide (never a 401).
          assert.ok(reply.status !== 401, `${where}: 401`);
          continue;
        }
        const verdict = onProject(caller.principal, permission, { restricted: true, grant: caller.grant });
        // The kit checks the query and body before the handler looks the project up: an invalid one
        // is refused first, alike for every project (it says nothing about this one).
        const refusedInput =
          [400, 422].includes(reply.status) && ['invalid_body', 'invalid_query', 'malformed_body'].includes(reply.body?.code);
        if (verdict === 'hidden') {
          assert.ok(reply.status === 404 || refusedInput, `${where}: hidden, got ${reply.status} ${reply.body?.code}`);
        } else if (verdict === 'denied') {
          assert.ok(reply.status === 403 || refusedInput, `${where}: denied, got ${reply.status} ${JSON.stringify(reply.body)}`);
        } else {
          assert.ok(
            !(reply.status === 403 || reply.status === 401 || reply.body?.code === 'project_not_found'),
            `${where}: allowed, got ${reply.status} ${reply.body?.code}`,
          );
        }
      }
    }
  },
);

restricted.run();
