import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_ROWS, MAX_TOKENS, QUERY_ROWS } from '../../../api/graphql/queryLimits.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from './gqlClient.ts';

/** Every refusal of a query's size or work is a 400 with `query_too_complex`, never a 500 or an error log line. */
type Ctx = { server: TestServer; projectId: string };
const test = suite<Ctx>('GraphQL query limits', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const created = dataOf(await gql(ctx.server, 'mutation { createProject(input: { name: "limits" }) { project { id } } }'));
  ctx.projectId = created.createProject.project.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const aliases = (ctx: Ctx, count: number, inner: string) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: node(id: "${ctx.projectId}") { ... on Project { ${inner} } }`).join(' ')} }`;

const errorLogLines = (ctx: Ctx) => ctx.server.logLines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);

const refused = async (ctx: Ctx, query: string, message: RegExp, variables: Record<string, unknown> = {}) => {
  const reply = await gql(ctx.server, query, variables);
  assert.is(reply.status, 400, JSON.stringify(reply.body).slice(0, 300));
  assert.equal(errorCodes(reply), ['query_too_complex']);
  assert.match(reply.body.errors[0].message, message);
  assert.is(reply.body.data, undefined, 'nothing ran');
};

test('a document of more tokens than the limit is refused before it is parsed (3,000 aliases)', async (ctx) => {
  await refused(ctx, aliases(ctx, 3000, 'spans(first: 1) { edges { node { name } } }'), new RegExp(`more than ${MAX_TOKENS} tokens`));
});

test('fragments spread within fragments past 10,000 fields: the node limit is a 400, not a 500, and is not logged as an error', async (ctx) => {
  const spread = (name: string) => Array.from({ length: 10 }, () => `...${name}`).join(' ');
  const bomb = `{ node(id: "${ctx.projectId}") { ...F1 } }
    fragment F1 on Project { ${spread('F2')} }
    fragment F2 on Project { ${spread('F3')} }
    fragment F3 on Project { ${spread('F4')} }
    fragment F4 on Project { ${spread('F5')} }
    fragment F5 on Project { id name }`;
  const before = errorLogLines(ctx).length;
  await refused(ctx, bomb, /more than 10000 fields once fragments are expanded/);
  assert.is(errorLogLines(ctx).length, before, 'no error-level log line');
});

test('the work limit counts round trips and rows: many aliases of a small connection are refused, however they are spelled', async (ctx) => {
  // The hostile run's shape, at a size the token limit lets through: 100 aliases of spans(first: 30).
  await refused(ctx, aliases(ctx, 100, 'spans(first: 30) { edges { node { name } } }'), /touches too many rows/);
  await refused(ctx, aliases(ctx, 3, 'spans(first: 1000) { edges { node { name } } }'), /estimated 3180 rows exceeds 2500/);
  const paged = Array.from(
    { length: 3 },
    (_, i) => `a${i}: node(id: "${ctx.projectId}") { ... on Project { spans(first: $n) { edges { node { name } } } } }`,
  );
  await refused(ctx, `query($n: Int!) { ${paged.join(' ')} }`, /touches too many rows/, { n: 1000 });
  const lookups = Math.ceil(MAX_ROWS / QUERY_ROWS);
  await refused(
    ctx,
    `{ ${Array.from({ length: lookups }, (_, i) => `a${i}: getProjectByName(name: "limits") { id }`).join(' ')} }`,
    /too many rows/,
  );
  await refused(ctx, aliases(ctx, 45, 'spanAnnotationSummaries { name }'), /too many rows/);
});

test('what the UI asks for stays within the limits: pages of 1,000 spans, the projects page with summaries, 30 small lookups', async (ctx) => {
  for (const query of [
    aliases(ctx, 2, 'spans(first: 1000) { edges { node { id spanId name latencyMs context { traceId } } } pageInfo { hasNextPage } }'),
    '{ projects(first: 50) { edges { node { id name summary { traceCount spanCount latencyMsP50 } } } pageInfo { hasNextPage } } }',
    aliases(ctx, 30, 'spans(first: 1) { edges { node { name } } }'),
    aliases(ctx, 1, 'spanAnnotationSummaries { name } traceAnnotationSummaries { name }'),
  ])
    dataOf(await gql(ctx.server, query));
});

test.run();
