import { GraphQLError } from 'graphql';
import { createHandler } from 'graphql-http';
import type Koa from 'koa';
import type { Principal } from '../../domain/access/principal.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf } from '../http/commandContextOf.ts';
import { readYourWrites } from '../http/readYourWrites.ts';
import { shapeError } from '../http/errorMiddleware.ts';
import { unauthenticated } from '../identity/unauthenticated.ts';
import { HttpError } from '../http/httpError.ts';
import { projectAccessOf } from '../http/projectAccess.ts';
import type { RouteDef } from '../http/route.ts';
import { graphqlSchema } from './buildGraphqlSchema.ts';
import { EXPLORER_CSP, EXPLORER_HTML } from './explorerPage.ts';
import type { GraphqlContext } from './graphqlContext.ts';
import { createLoaders } from './loaders.ts';
import { yieldingPool } from './yieldingPool.ts';
import { costLimit, depthLimit, MAX_DEPTH, parseWithinLimits, workLimit } from './queryLimits.ts';

type RequestContext = { readonly koa: Koa.Context };

/** A browser navigating to /graphql (not a client asking for JSON) gets the explorer page. */
const wantsPage = (ctx: Koa.Context): boolean =>
  ctx.method === 'GET' && ctx.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';

/**
 * `/graphql` (GET for queries, POST JSON for anything): graphql-http over the type-graphql schema.
 * Authentication is the REST layer's (the route is mounted like the others); authorization is
 * per root field (see requires.ts), from the same permission table. A request without a valid
 * credential while auth is on is answered 401 as REST answers it, before any GraphQL runs.
 */
export const graphqlRoutes = (deps: AppDeps): RouteDef[] => {
  const settle = readYourWrites(deps.runner);
  const handle = createHandler<unknown, RequestContext, GraphqlContext>({
    schema: graphqlSchema(),
    context: async (req) => {
      // This request's queries one at a time, letting other requests in between (yieldingPool.ts).
      const pool = yieldingPool(deps.pool);
      const access = await projectAccessOf(req.context.koa);
      return {
        deps: { ...deps, pool },
        principal: req.context.koa.state.principal as Principal,
        koa: req.context.koa,
        loaders: createLoaders(pool, access.hidden),
        command: commandContextOf(req.context.koa),
        settle,
        access,
      };
    },
    parse: parseWithinLimits,
    validationRules: (_req, args, specified) => [
      ...specified,
      depthLimit(MAX_DEPTH),
      costLimit(args.variableValues as Record<string, unknown> | undefined),
      workLimit(args.variableValues as Record<string, unknown> | undefined),
    ],
    formatError: (error) => {
      if (!(error instanceof GraphQLError) || error.path === undefined || error.extensions?.code !== undefined) return error;
      // A resolver's error without our code: one REST gives a meaning to (database unavailable,
      // a domain rule...) keeps it; anything else is a bug or database trouble, logged, never leaked.
      const shaped = shapeError(error.originalError);
      if (shaped !== null)
        return new GraphQLError(shaped.detail, { path: error.path, extensions: { code: shaped.code, status: shaped.status } });
      deps.logger.error({ err: error.originalError ?? error, path: error.path }, 'graphql resolver failed');
      return new GraphQLError('Internal server error', { path: error.path, extensions: { code: 'internal_error', status: 500 } });
    },
  });

  const serve = async (ctx: Koa.Context): Promise<void> => {
    if (wantsPage(ctx)) {
      ctx.set('content-security-policy', EXPLORER_CSP);
      ctx.set('x-content-type-options', 'nosniff');
      ctx.type = 'text/html';
      ctx.body = EXPLORER_HTML;
      return;
    }
    if (ctx.state.principal === null || ctx.state.principal === undefined) {
      const { code, message } = unauthenticated(ctx.state.authProblem);
      throw new HttpError(401, code, message);
    }
    const [body, init] = await handle({
      url: ctx.url,
      method: ctx.method,
      headers: ctx.headers as Record<string, string>,
      body: () => ((ctx.request as { body?: unknown }).body ?? null) as string | Record<string, unknown> | null,
      raw: ctx.req,
      context: { koa: ctx },
    });
    ctx.status = init.status;
    for (const [name, value] of Object.entries(init.headers ?? {})) ctx.set(name, value);
    ctx.body = body ?? '';
  };

  return [
    // 'public' here means "authenticate, but let the handler answer": the explorer page needs no
    // credential, and GraphQL checks each field's own permission.
    { method: 'GET', path: '/graphql', permission: 'public', body: 'none', handler: serve },
    { method: 'POST', path: '/graphql', permission: 'public', body: 'json', handler: serve },
  ];
};
