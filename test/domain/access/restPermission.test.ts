import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { can } from '../../../domain/access/can.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { restPermission } from '../../../domain/access/restPermission.ts';
import type { Role } from '../../../domain/identity/roles.ts';

const user = (role: Role): Principal => ({ kind: 'user', userId: role, role });

test('defaults: GET reads, any other method writes', () => {
  assert.is(restPermission('GET', '/v1/projects'), 'read');
  assert.is(restPermission('get', '/v1/projects/{project_identifier}/spans'), 'read');
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) assert.is(restPermission(method, '/v1/datasets/{id}'), 'write');
});

test('the seed’s exceptions, whatever the parameter is called', () => {
  assert.is(restPermission('DELETE', '/v1/users/:id'), 'users.manage');
  assert.is(restPermission('PUT', '/v1/projects/{id}'), 'projects.manage');
  assert.is(restPermission('DELETE', '/v1/projects/:project_identifier/'), 'projects.manage');
  assert.is(restPermission('POST', '/v1/projects'), 'write');
  assert.is(restPermission('POST', '/v1/traces'), 'ingest');
  assert.is(restPermission('PUT', '/v1/secrets'), 'secrets.manage');
  assert.is(restPermission('GET', '/v1/users/api_keys'), 'apikeys.users.manage');
  assert.is(restPermission('POST', '/v1/chat/completions'), 'write');
});

/** The seed's REST table, as a rule of its own, to check the permission table against. */
const seedSays = (role: Role, method: string, path: string): boolean => {
  const adminOnly =
    /^\/v1\/users(\/|$)/.test(path) ||
    (/^\/v1\/projects\/\{[^}]+\}$/.test(path) && ['PUT', 'DELETE'].includes(method)) ||
    /^\/v1\/secrets$/.test(path) ||
    /^\/v1\/system\/api_keys/.test(path);
  if (adminOnly) return role === 'ADMIN';
  if (/^\/v1\/user\/api_keys/.test(path)) return true; // mutation table: every role manages its own keys
  return method === 'GET' || role !== 'VIEWER';
};

test('every /v1 route of the reference contract, for every role, follows the seed', () => {
  const contract = JSON.parse(readFileSync(new URL('../../../docs/reference/phoenix-openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(contract.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => [m.toUpperCase(), path] as const));
  routes.push(['POST', '/v1/traces']);
  assert.ok(routes.length > 90);
  for (const role of ['ADMIN', 'MEMBER', 'VIEWER'] as const) {
    for (const [method, path] of routes) {
      assert.is(can(user(role), restPermission(method, path)), seedSays(role, method, path), `${role} ${method} ${path}`);
    }
  }
});

test.run();
