import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { authorize } from '../../domain/access/authorize.ts';
import type { Principal } from '../../domain/access/principal.ts';
import { widenedByGrant } from '../../domain/access/projectStanding.ts';
import { unauthenticated } from '../identity/unauthenticated.ts';
import { HttpError } from './httpError.ts';
import type { ProjectAccess } from './projectAccess.ts';
import type { RouteDef } from './route.ts';

/**
 * Mounts routes under the root path. For each: authenticate, authorize the declared permission
 * (401/403 before the body is read), parse the body, run the handler.
 */
export const mountRoutes = (
  routes: readonly RouteDef[],
  options: {
    readonly rootPath: string;
    readonly maxRequestBytes: number;
    readonly authenticate: (ctx: Koa.Context) => Promise<Principal | null>;
    /** What the projects are to a principal (projectAccess.ts): read at most once per request. */
    readonly projectAccess: (principal: Principal | null) => Promise<ProjectAccess>;
  },
): Router => {
  const router = new Router(options.rootPath ? { prefix: options.rootPath } : {});
  const json = koaBody({
    json: true,
    multipart: false,
    urlencoded: true,
    text: false,
    jsonLimit: options.maxRequestBytes,
    formLimit: options.maxRequestBytes,
    jsonStrict: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (error: Error) => {
      const e = error as Error & { status?: number; type?: string };
      if (e.status === 413 || e.type === 'entity.too.large')
        throw new HttpError(413, 'request_too_large', `Request body exceeds ${options.maxRequestBytes} bytes`);
      if (e.status === 415) throw new HttpError(415, 'unsupported_media_type', e.message);
      throw new HttpError(400, 'malformed_body', `Request body is not valid JSON: ${e.message}`);
    },
  });
  for (const route of routes) {
    const guard: RouterMiddleware = async (ctx, next) => {
      if (route.permission !== 'public') {
        const principal = await options.authenticate(ctx);
        ctx.state.principal = principal;
        let access: Promise<ProjectAccess> | null = null;
        ctx.state.projectAccess = () => (access ??= options.projectAccess(principal));
        let decision = authorize(principal, route.permission);
        // A project-scoped permission the global role lacks: a grant holding it lets the request
        // on to the handler's project check (domain/access/permissions.ts, `scope`).
        if (
          !decision.allowed &&
          decision.status === 403 &&
          widenedByGrant(principal, route.permission, (await ctx.state.projectAccess()).grants)
        )
          decision = { allowed: true };
        if (!decision.allowed) {
          if (decision.status === 401) {
            const { code, message } = unauthenticated(ctx.state.authProblem);
            throw new HttpError(401, code, message);
          }
          throw new HttpError(decision.status, decision.code, decision.message);
        }
      } else {
        const principal = await options.authenticate(ctx).catch(() => null);
        ctx.state.principal = principal;
        let access: Promise<ProjectAccess> | null = null;
        ctx.state.projectAccess = () => (access ??= options.projectAccess(principal));
      }
      await next();
    };
    const wantsBody = route.body ? route.body === 'json' : route.method !== 'GET' && route.method !== 'DELETE';
    const chain: RouterMiddleware[] = [guard];
    if (wantsBody) chain.push(json as unknown as RouterMiddleware);
    chain.push(async (ctx) => {
      await route.handler(ctx as unknown as Koa.Context);
    });
    router.register(route.path, [route.method], chain);
  }
  return router;
};

/**
 * The router's answer for a known path with a method it does not serve (405, or 501 for a method
 * no route uses), in the one error shape `{"detail", "code"}` instead of Koa's plain-text status
 * line. The `Allow` header the router sets is kept; OPTIONS keeps its empty 200.
 */
export const allowedMethodsAsJson = (router: Router): Koa.Middleware => {
  const allowed = router.allowedMethods({ throw: false }) as unknown as Koa.Middleware;
  return async (ctx, next) => {
    await allowed(ctx, next);
    if (ctx.body != null) return;
    const allow = ctx.response.get('Allow');
    if (ctx.status === 405) {
      ctx.body = { detail: `Method Not Allowed: ${ctx.method} ${ctx.path} (allowed: ${allow})`, code: 'method_not_allowed' };
    } else if (ctx.status === 501) {
      ctx.body = { detail: `Not Implemented: ${ctx.method} ${ctx.path} (allowed: ${allow})`, code: 'method_not_implemented' };
    }
  };
};
