import * as grpc from '@grpc/grpc-js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RouteDef } from '../../../api/http/route.ts';
import { authorize } from '../../../domain/access/authorize.ts';
import { restPermission } from '../../../domain/access/restPermission.ts';
import { rawTraceService } from '../../../ingest/grpcServer.ts';
import { callAs, createKey, login, type Credentials } from '../../support/authClient.ts';
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
