import type { Middleware } from 'koa';
import type { Metrics } from './metrics.ts';

/**
 * Times every request by route template (`/v1/projects/:project_identifier`, as @koa/router
 * matched it), never the raw path: ids in paths would make one time series per id. Requests no
 * route matched share the label `unmatched`.
 */
export const httpMetrics =
  (metrics: Metrics): Middleware =>
  async (ctx, next) => {
    const end = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      end({ method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) });
    }
  };
