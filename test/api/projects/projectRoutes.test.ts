import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import type { ProjectCreated } from '../../../domain/projects/events.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { httpSpec, inStream } from '../../support/httpSpec.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('projects over HTTP, given/when/then', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

// One server for the file: each test uses its own project names.
let next = 0;
const project = (name: string) => {
  next += 1;
  const projectId = `00000000-0000-4000-8000-${String(next).padStart(12, '0')}`;
  const created: ProjectCreated = {
    type: 'ProjectCreated',
    data: { projectId, name, description: 'old', gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
  };
  return { projectId, created, given: inStream(projectStream(name), created) };
};

test('given a project, when PUT changes the description and a colour, then only those change, and both come back', async ({ server }) => {
  const shop = project('shop');
  await httpSpec(server)
    .given(shop.given)
    .when('PUT', '/v1/projects/shop', { body: { description: 'new', gradient_end_color: '#000000' } })
    .then({
      status: 200,
      body: (body: { data: Record<string, unknown> }) =>
        assert.equal(
          { ...body.data, id: 'x' },
          {
            id: 'x',
            name: 'shop',
            description: 'new',
            gradient_start_color: '#5bdbff',
            gradient_end_color: '#000000',
            restricted: false,
          },
        ),
      events: [{ type: 'ProjectUpdated', data: { projectId: shop.projectId, description: 'new', gradientEndColor: '#000000' } }],
    });
});

test('given nothing, when POST creates a project, then one ProjectCreated with the default colours', async ({ server }) => {
  await httpSpec(server)
    .given()
    .when('POST', '/v1/projects', { body: { name: 'fresh', description: null } })
    .then({
      status: 200,
      events: (events: readonly DomainEvent[]) => {
        assert.is(events.length, 1);
        const { projectId, ...rest } = (events[0] as ProjectCreated).data;
        assert.match(projectId, /^[0-9a-f-]{36}$/);
        assert.equal(rest, { name: 'fresh', description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' });
      },
    });
});

test('given a project, when a PUT body breaks a rule, then a JSON 4xx naming it and no event', async ({ server }) => {
  const docs = project('docs');
  const outcome = await httpSpec(server)
    .given(docs.given)
    .when('PUT', '/v1/projects/docs', { body: { gradient_start_color: 'red' } })
    .then({ status: 400, events: [] });
  assert.match(String((outcome.body as { detail: string }).detail), /colou?r/i);
});

test('given a project, when a method the path does not serve, then 405 in the JSON error shape with Allow, and no event', async ({
  server,
}) => {
  const blog = project('blog');
  const outcome = await httpSpec(server)
    .given(blog.given)
    .when('PATCH', '/v1/projects/blog', { body: { description: 'x' } })
    .then({
      status: 405,
      body: { detail: 'Method Not Allowed: PATCH /v1/projects/blog (allowed: HEAD, GET, PUT, DELETE)', code: 'method_not_allowed' },
      events: [],
    });
  assert.match(outcome.headers.get('content-type') ?? '', /application\/json/);
  assert.is(outcome.headers.get('allow'), 'HEAD, GET, PUT, DELETE');
});

test('when the default project is deleted, then 403 and no event', async ({ server }) => {
  await httpSpec(server)
    .given()
    .when('DELETE', '/v1/projects/default')
    .then({ status: 403, body: (body: { code: string }) => assert.is(body.code, 'default_project'), events: [] });
});

test.run();
