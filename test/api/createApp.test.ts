import { createModelClient } from '../../adapters/outbound/modelClient.ts';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { AppDeps } from '../../api/appDeps.ts';
import { createExportDecoder } from '../../ingest/exportDecoder.ts';
import { createIngestBudget } from '../../ingest/ingestBudget.ts';
import { DEFAULT_BODY_PACE } from '../../ingest/otlpHttp.ts';
import { createApp } from '../../api/createApp.ts';
import { healthRoutes } from '../../api/health.ts';
import { parseBody } from '../../api/http/parseBody.ts';
import type { RouteDef } from '../../api/http/route.ts';
import { DomainError } from '../../domain/errors.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { closeServer, listen } from '../../ops/http/listen.ts';
import { createLogger } from '../../ops/logger.ts';
import { freshMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { testAuthSettings, testIdentityServices } from '../support/testIdentity.ts';
import { createCodeSandbox } from '../../domain/evaluators/codeSandbox.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (r: Response): Promise<any> => r.json();

type Ctx = { db: TestDatabase; deps: AppDeps; logs: string[]; draining: boolean };
const test = suite<Ctx>('http skeleton', {} as Ctx);

const demoRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/conflict',
    permission: 'read',
    handler: () => {
      throw new DomainError('name_taken', 'Name already exists', 'conflict');
    },
  },
  {
    method: 'GET',
    path: '/v1/crash',
    permission: 'read',
    handler: () => {
      throw new Error('secret internals');
    },
  },
  {
    method: 'POST',
    path: '/v1/echo',
    permission: 'write',
    handler: (ctx) => {
      ctx.body = parseBody(ctx, z.object({ data: z.object({ name: z.string() }) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/slow',
    permission: 'read',
    handler: async (ctx) => {
      await new Promise((r) => setTimeout(r, 300));
      ctx.body = { done: true };
    },
  },
];

const serve = async (ctx: Ctx, rootPath = '') => {
  const deps = { ...ctx.deps, settings: { ...ctx.deps.settings, rootPath } };
  const app = createApp(deps, [...healthRoutes(deps), ...demoRoutes]);
  const server = await listen(app.koa, '127.0.0.1', 0);
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}${rootPath}` };
};

test.before.each(async (ctx) => {
  ctx.db = await freshMigratedDatabase();
  ctx.logs = [];
  ctx.draining = false;
  const store = createPostgresEventStore(ctx.db.pool);
  const logger = createLogger('info', new Writable({ write: (c, _e, done) => (ctx.logs.push(String(c)), done()) }));
  const identity = testIdentityServices();
  ctx.deps = {
    store,
    pool: ctx.db.pool,
    runner: createProjectionRunner({ store, pool: ctx.db.pool, projections: [] }),
    logger,
    settings: { rootPath: '', serverVersion: '15.5.0', maxRequestBytes: 2048, defaultProjectName: 'default', auth: testAuthSettings() },
    authenticate: async () => ({ kind: 'anonymous' }),
    identity,
    models: createModelClient({ sealedSecrets: async () => new Map(), keyring: identity.keyring, logger }),
    spanIngest: {
      budget: createIngestBudget({ maxInFlightRequests: 1, maxInFlightBytes: 2048 }),
      decoder: createExportDecoder({ workers: 1, offThreadFromBytes: Number.POSITIVE_INFINITY }),
      pace: DEFAULT_BODY_PACE,
    },
    isDraining: () => ctx.draining,
    evaluators: { sandbox: createCodeSandbox() },
  };
});
test.after.each(async (ctx) => {
  await ctx.db.close();
});

test('health, readiness and version answer, and every response carries the version header and a request id', async (ctx) => {
  const { server, base } = await serve(ctx);
  try {
    const health = await fetch(`${base}/healthz`);
    assert.is(health.status, 200);
    assert.is(health.headers.get('x-phoenix-server-version'), '15.5.0');
    assert.ok(health.headers.get('x-request-id'));
    const ready = await fetch(`${base}/readyz`);
    assert.is(ready.status, 200);
    assert.is((await json(ready)).status, 'ok');
    const version = await fetch(`${base}/arize_phoenix_version`);
    assert.is(await version.text(), '15.5.0');
    const missing = await fetch(`${base}/v1/nothing-here`);
    assert.is(missing.status, 404);
    assert.is(missing.headers.get('x-phoenix-server-version'), '15.5.0');
    assert.equal(Object.keys(await json(missing)).sort(), ['code', 'detail']);
    ctx.draining = true;
    const draining = await fetch(`${base}/readyz`);
    assert.is(draining.status, 503);
    assert.ok((await json(draining)).problems.includes('shutting down'));
  } finally {
    await closeServer(server);
  }
});

test('errors have one shape; unexpected errors are logged with the request id and never leaked', async (ctx) => {
  const { server, base } = await serve(ctx);
  try {
    const conflict = await fetch(`${base}/v1/conflict`);
    assert.is(conflict.status, 409);
    assert.equal(await json(conflict), { detail: 'Name already exists', code: 'name_taken' });
    const crash = await fetch(`${base}/v1/crash`);
    assert.is(crash.status, 500);
    const body = await json(crash);
    assert.is(body.code, 'internal_error');
    assert.not.match(JSON.stringify(body), /secret internals/);
    const id = crash.headers.get('x-request-id')!;
    assert.ok(
      ctx.logs.some((l) => l.includes(id) && l.includes('secret internals')),
      'the error is logged with its request id',
    );
  } finally {
    await closeServer(server);
  }
});

test('bad bodies: malformed JSON 400, too large 413, wrong shape 422 naming the field', async (ctx) => {
  const { server, base } = await serve(ctx);
  const post = (body: string) => fetch(`${base}/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  try {
    assert.equal(await (await post('{"data": {"name": "x"}}')).json(), { data: { name: 'x' } });
    const malformed = await post('{"data": ');
    assert.is(malformed.status, 400);
    assert.is((await json(malformed)).code, 'malformed_body');
    const large = await post(JSON.stringify({ data: { name: 'x'.repeat(5000) } }));
    assert.is(large.status, 413);
    const wrong = await post('{"data": {"name": 5}}');
    assert.is(wrong.status, 422);
    assert.match((await json(wrong)).detail, /body\.data\.name/);
  } finally {
    await closeServer(server);
  }
});

test('every path lives under the root path when one is set', async (ctx) => {
  const { server, base } = await serve(ctx, '/loupe');
  try {
    assert.is((await fetch(`${base}/healthz`)).status, 200);
    assert.is((await fetch(base.replace('/loupe', '/healthz'))).status, 404);
  } finally {
    await closeServer(server);
  }
});

test('graceful shutdown: a request in flight when the server closes is still answered, then its connection closes', async (ctx) => {
  const { server, base } = await serve(ctx);
  const inFlight = fetch(`${base}/v1/slow`);
  await new Promise((r) => setTimeout(r, 50));
  const closed = closeServer(server);
  const response = await inFlight;
  assert.is(response.status, 200);
  assert.equal(await json(response), { done: true });
  // Its connection is closed once answered, not held open for the 65 s keep-alive timeout.
  const shutDown = await Promise.race([closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 20_000).unref())]);
  assert.ok(shutDown, 'the server closed within 20 s of answering its last request');
  try {
    await fetch(`${base}/healthz`);
    assert.unreachable('no new connections after close');
  } catch (error) {
    assert.instance(error, TypeError);
  }
});

test.run();
