import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('REST /v1/projects', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const globalId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64');

test('POST creates a project (Phoenix shape), GET finds it by GlobalID and by name', async ({ server }) => {
  const created = await callJson(server, 'POST', '/v1/projects', { name: 'alpha', description: 'first' });
  assert.is(created.status, 200);
  // Phoenix's shape plus the colours, so what was written can be read back.
  assert.equal(Object.keys(created.body.data).sort(), [
    'description',
    'gradient_end_color',
    'gradient_start_color',
    'id',
    'name',
    'restricted',
  ]);
  assert.is(created.body.data.name, 'alpha');
  assert.is(created.body.data.description, 'first');
  const id = created.body.data.id;
  assert.match(Buffer.from(id, 'base64').toString(), /^Project:\d+$/);
  assert.equal((await callJson(server, 'GET', `/v1/projects/${encodeURIComponent(id)}`)).body, created.body);
  assert.equal((await callJson(server, 'GET', '/v1/projects/alpha')).body, created.body);
});

test('a duplicate name is a 409 conflict, a missing name a 422 naming the field', async ({ server }) => {
  await callJson(server, 'POST', '/v1/projects', { name: 'dup' });
  const again = await callJson(server, 'POST', '/v1/projects', { name: 'dup' });
  assert.is(again.status, 409);
  assert.is(again.body.code, 'project_exists');
  const bad = await callJson(server, 'POST', '/v1/projects', { description: 'x' });
  assert.is(bad.status, 422);
  assert.match(bad.body.detail, 'body.name');
});

test('GET lists newest first, pages with an inclusive cursor, filters by name_contains', async ({ server }) => {
  for (const name of ['page-a', 'page-b', 'Page-C']) await callJson(server, 'POST', '/v1/projects', { name });
  const first = await callJson(server, 'GET', '/v1/projects?name_contains=PAGE&limit=2');
  assert.equal(
    first.body.data.map((p: { name: string }) => p.name),
    ['Page-C', 'page-b'],
  );
  assert.ok(first.body.next_cursor);
  const second = await callJson(
    server,
    'GET',
    `/v1/projects?name_contains=page&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
  );
  assert.equal(
    second.body.data.map((p: { name: string }) => p.name),
    ['page-a'],
  );
  assert.is(second.body.next_cursor, null);
  assert.is((await callJson(server, 'GET', '/v1/projects?limit=0')).status, 422);
  const badCursor = await callJson(server, 'GET', '/v1/projects?cursor=nope');
  assert.is(badCursor.status, 422);
  assert.match(badCursor.body.detail, 'cursor');
});

test('PUT changes the description (null leaves it) and the gradient colours', async ({ server }) => {
  await callJson(server, 'POST', '/v1/projects', { name: 'upd', description: 'old' });
  const put = await callJson(server, 'PUT', '/v1/projects/upd', { description: 'new', gradient_start_color: '#000000' });
  assert.is(put.status, 200);
  assert.is(put.body.data.description, 'new');
  assert.is(put.body.data.gradient_start_color, '#000000');
  assert.is((await callJson(server, 'GET', '/v1/projects/upd')).body.data.gradient_start_color, '#000000');
  assert.is((await callJson(server, 'PUT', '/v1/projects/upd', { description: null })).body.data.description, 'new');
  assert.is((await callJson(server, 'PUT', '/v1/projects/upd', { gradient_end_color: 'red' })).status, 400);
  assert.is((await callJson(server, 'PUT', '/v1/projects/nope', { description: 'x' })).status, 404);
});

test('DELETE removes the project and its telemetry (204); the default project is protected (403); unknown is 404', async ({ server }) => {
  await seed(server, 'doomed', [spanRecord({ traceId: newTraceId() })]);
  assert.is((await callJson(server, 'GET', '/v1/projects/doomed/spans')).body.data.length, 1);
  const del = await callJson(server, 'DELETE', '/v1/projects/doomed');
  assert.is(del.status, 204);
  assert.is(del.text, '');
  assert.is((await callJson(server, 'GET', '/v1/projects/doomed')).status, 404);
  assert.is((await callJson(server, 'DELETE', '/v1/projects/doomed')).status, 404);
  await callJson(server, 'POST', '/v1/projects', { name: 'default' }).catch(() => undefined);
  const protectedDefault = await callJson(server, 'DELETE', '/v1/projects/default');
  assert.is(protectedDefault.status, 403);
  assert.is(protectedDefault.body.code, 'default_project');
  // A name created again is a new project with a new id and none of the old spans.
  await seed(server, 'doomed', [spanRecord({ traceId: newTraceId() })]);
  assert.is((await callJson(server, 'GET', '/v1/projects/doomed/spans')).body.data.length, 1);
});

test('unknown project identifiers are 404 everywhere', async ({ server }) => {
  for (const path of [
    '/v1/projects/nope',
    `/v1/projects/${encodeURIComponent(globalId('Project', 999))}`,
    '/v1/projects/nope/spans',
    '/v1/projects/nope/traces',
    '/v1/projects/nope/sessions',
  ]) {
    const r = await callJson(server, 'GET', path);
    assert.is(r.status, 404, path);
  }
});

test.run();
