import Koa from 'koa';
import type { AppDeps } from './appDeps.ts';
import { csrfMiddleware } from './http/csrf.ts';
import { errorMiddleware } from './http/errorMiddleware.ts';
import { allowedMethodsAsJson, mountRoutes } from './http/mountRoutes.ts';
import { loadProjectAccess } from './http/projectAccess.ts';
import { httpMetrics } from './metrics/httpMetrics.ts';
import { requestContext } from './http/requestContext.ts';
import type { RouteDef } from './http/route.ts';
import { allRoutes } from './routes.ts';

export type App = { readonly koa: Koa; readonly routes: readonly RouteDef[] };

/** Builds the Koa app; never listens (tests mount it on a random port, ops/serve on the configured one). */
/** `fallback` answers what no route did (the web UI's not-found page for a browser). */
export const createApp = (deps: AppDeps, routes: readonly RouteDef[] = allRoutes(deps), fallback?: Koa.Middleware): App => {
  // X-Forwarded-* only when the operator says a proxy sets them (SERVICE_TRUST_PROXY).
  const koa = new Koa({ proxy: deps.settings.auth.trustProxy });
  koa.silent = true; // errors are logged once, by the error middleware, with the request id
  if (deps.metrics) koa.use(httpMetrics(deps.metrics));
  koa.use(requestContext(deps.logger, deps.settings.serverVersion));
  koa.use(errorMiddleware());
  if (fallback) koa.use(fallback);
  const csrf = csrfMiddleware(deps.settings.auth.csrfTrustedOrigins, deps.settings.rootPath);
  if (csrf !== null) koa.use(csrf);
  const router = mountRoutes(routes, {
    rootPath: deps.settings.rootPath,
    maxRequestBytes: deps.settings.maxRequestBytes,
    authenticate: deps.authenticate,
    projectAccess: (principal) => loadProjectAccess(deps.pool, principal),
  });
  koa.use(router.routes());
  koa.use(allowedMethodsAsJson(router));
  return { koa, routes };
};
