import { loadProjectAccess } from '../../../api/http/projectAccess.ts';
import { graphql } from 'graphql';
import type { DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppDeps } from '../../../api/appDeps.ts';
import { graphqlSchema } from '../../../api/graphql/buildGraphqlSchema.ts';
import type { GraphqlContext } from '../../../api/graphql/graphqlContext.ts';
import { createLoaders } from '../../../api/graphql/loaders.ts';
import { seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * No N+1: nested fields are batched by per-request dataloaders, so the number of SQL statements a
 * page costs does not grow with the page. The real schema runs against the real database through
 * a pool that counts the statements it is given.
 */

const QUERY_METHODS = [
  'any',
  'anyFirst',
  'exists',
  'many',
  'manyFirst',
  'maybeOne',
  'maybeOneFirst',
  'one',
  'oneFirst',
  'query',
  'stream',
  'transaction',
  'connect',
];

const countingPool = (pool: DatabasePool) => {
  const statements: string[] = [];
  const proxy = new Proxy(pool, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !QUERY_METHODS.includes(key) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        statements.push(
          String((args[0] as { sql?: string })?.sql ?? key)
            .replace(/\s+/g, ' ')
            .slice(0, 120),
        );
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { pool: proxy, statements };
};

type Ctx = { server: TestServer };
const test = suite<Ctx>('GraphQL batching', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const spans = Array.from({ length: 120 }, (_, i) => {
    const traceId = newTraceId();
    const at = (s: number) => nanos('2024-01-01T00:00:00Z', BigInt(i * 60 + s) * 1_000_000_000n);
    const root = spanRecord({
      traceId,
      name: `root ${i}`,
      spanKind: 'CHAIN',
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(5),
      attributes: attrs({ 'input.value': `q${i}`, 'session.id': `s${i % 7}` }),
    });
    const llm = spanRecord({
      traceId,
      parentId: root.spanId,
      name: 'llm',
      spanKind: 'LLM',
      startTimeUnixNano: at(1),
      endTimeUnixNano: at(2),
      attributes: attrs({ 'llm.token_count.prompt': 10, 'llm.token_count.completion': 2 }),
    });
    const tool = spanRecord({
      traceId,
      parentId: root.spanId,
      name: 'tool',
      spanKind: 'TOOL',
      startTimeUnixNano: at(3),
      endTimeUnixNano: at(4),
    });
    return [root, llm, tool];
  }).flat();
  await seed(ctx.server, 'batched', spans);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const run = async (server: TestServer, source: string, variables: Record<string, unknown>) => {
  const { pool, statements } = countingPool(server.pool);
  const contextValue: GraphqlContext = {
    deps: { pool } as unknown as AppDeps,
    principal: { kind: 'anonymous' },
    koa: {} as GraphqlContext['koa'],
    loaders: createLoaders(pool),
    command: { actor: 'test', requestId: null },
    // These queries write nothing: a mutation's wait would be a bug here.
    settle: async () => assert.unreachable('a query settled a write'),
    access: await loadProjectAccess(pool, { kind: 'anonymous' }),
  };
  const result = await graphql({ schema: graphqlSchema(), source, variableValues: variables, contextValue });
  assert.equal(result.errors, undefined, JSON.stringify(result.errors));
  return { data: result.data as any, statements };
};

const TRACES = `query($first: Int!) { getProjectByName(name: "batched") { traces(first: $first) { edges { node {
  traceId numSpans errorCount tokenCountPrompt tokenCountCompletion tokenCountTotal latencyMs
  rootSpan { name spanKind input { value } output { value } tokenCountTotal numChildSpans }
  session { sessionId numTraces } project { name } } } } } }`;

test('a page of 100 traces with root spans, span counts and token totals costs as many statements as a page of 5', async ({ server }) => {
  const big = await run(server, TRACES, { first: 100 });
  const small = await run(server, TRACES, { first: 5 });
  const edges = big.data.getProjectByName.traces.edges;
  assert.is(edges.length, 100);
  const t = edges[0].node;
  assert.is(t.numSpans, 3);
  assert.is(t.tokenCountTotal, 12);
  assert.is(t.rootSpan.name, 'root 119');
  assert.is(t.rootSpan.numChildSpans, 2);
  assert.is(t.session.sessionId, 's0');
  assert.is(
    big.statements.length,
    small.statements.length,
    `100 traces: ${big.statements.length} statements, 5 traces: ${small.statements.length}\n${big.statements.join('\n')}`,
  );
  if (process.env.SHOW_STATEMENTS) console.log(big.statements.join('\n'));
  assert.ok(big.statements.length <= 7, `${big.statements.length} statements:\n${big.statements.join('\n')}`);
});

test('project summaries and spans with their traces are batched too', async ({ server }) => {
  const query = `query($first: Int!) { projects(first: 10) { edges { node { name summary { traceCount spanCount latencyMsP50 tokenCountTotal errorRate lastActivityAt } } } }
    getProjectByName(name: "batched") { spans(first: $first) { edges { node { name attributes trace { traceId numSpans } project { name } } } } } }`;
  const big = await run(server, query, { first: 300 });
  const small = await run(server, query, { first: 3 });
  const summary = big.data.projects.edges.find((e: any) => e.node.name === 'batched').node.summary;
  assert.equal([summary.traceCount, summary.spanCount, summary.latencyMsP50, summary.tokenCountTotal], [120, 360, 5000, 1440]);
  assert.is(big.data.getProjectByName.spans.edges.length, 300);
  assert.is(big.statements.length, small.statements.length, big.statements.join('\n'));
});

test.run();
