import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, createKey, createUser, login, type Credentials } from '../../support/authClient.ts';
import { seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, gql } from '../graphql/gqlClient.ts';

/**
 * The annotation panels show who judged: `authorName` is the author's username, readable by a
 * viewer (who may not list users); an API key's annotation is its owner's; nobody's is null.
 */

type Ctx = { server: TestServer; admin: Credentials; alice: Credentials; viewer: Credentials; aliceKey: string };
const test = suite<Ctx>('annotation author names over GraphQL', {} as Ctx);

const root = spanRecord({ traceId: newTraceId(), name: 'agent' });

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  const password = 'Passw0rd!-long-enough';
  await createUser(ctx.server, ctx.admin, { email: 'alice@example.com', username: 'alice', role: 'MEMBER', password });
  await createUser(ctx.server, ctx.admin, { email: 'vera@example.com', username: 'vera', role: 'VIEWER', password });
  ctx.alice = await login(ctx.server, 'alice@example.com', password);
  ctx.viewer = await login(ctx.server, 'vera@example.com', password);
  ctx.aliceKey = (await createKey(ctx.server, ctx.alice, 'user')).key;
  await seed(ctx.server, 'author-names', [root]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const CREATE = `mutation($input: [AnnotationInput!]!) { createAnnotations(input: $input) { id } }`;
const NOTE = `mutation($t: ID!) { createNote(note: "looks fine", target: span, targetId: $t) { id } }`;
const PANEL = `query($s: String!) { getSpanByOtelId(spanId: $s) { spanAnnotations { name authorName userId } spanNotes { authorName } } }`;

test('a viewer reads the usernames of a person, of an API key’s owner, and null for nobody in particular', async ({
  server,
  alice,
  viewer,
  aliceKey,
  admin,
}) => {
  // Given annotations by alice in the app, by alice's API key, and by the admin secret (the system)
  dataOf(await gql(server, CREATE, { input: [{ target: 'span', targetId: root.spanId, name: 'by-app', label: 'ok' }] }, alice));
  dataOf(
    await gql(server, CREATE, { input: [{ target: 'span', targetId: root.spanId, name: 'by-key', label: 'ok' }] }, { bearer: aliceKey }),
  );
  dataOf(await gql(server, CREATE, { input: [{ target: 'span', targetId: root.spanId, name: 'by-system', label: 'ok' }] }, admin));
  dataOf(await gql(server, NOTE, { t: root.spanId }, alice));
  // When a viewer reads the span's panel
  type Panel = {
    spanAnnotations: { name: string; authorName: string | null; userId: string | null }[];
    spanNotes: { authorName: string | null }[];
  };
  const span = dataOf(await gql(server, PANEL, { s: root.spanId }, viewer)).getSpanByOtelId as Panel;
  // Then each annotation names its author, the key's as its owner
  const byName = Object.fromEntries(span.spanAnnotations.map((a) => [a.name, a.authorName]));
  assert.is(byName['by-app'], 'alice');
  assert.is(byName['by-key'], 'alice');
  const system = span.spanAnnotations.find((a) => a.name === 'by-system')!;
  assert.is(system.authorName === null, system.userId === null, 'a name exactly when there is an author');
  assert.equal(
    span.spanNotes.map((n) => n.authorName),
    ['alice'],
  );
});

test.run();
