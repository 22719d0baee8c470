import type Koa from 'koa';
import { restPermission } from '../domain/access/restPermission.ts';
import type { Principal } from '../domain/access/principal.ts';
import { createOtlpHttpMiddleware } from '../ingest/otlpHttp.ts';
import type { SpanSink } from '../ingest/spanSink.ts';
import type { AppDeps } from './appDeps.ts';
import type { RouteDef } from './http/route.ts';

/** `POST /v1/traces`: the OTLP/HTTP receiver, on the main port and on the OTLP port. */
export const otlpRoutes = (deps: AppDeps, sink: SpanSink<Principal | null>): RouteDef[] => {
  const middleware = createOtlpHttpMiddleware<Principal | null>({
    sink,
    budget: deps.spanIngest.budget,
    decoder: deps.spanIngest.decoder,
    pace: deps.spanIngest.pace,
    maxRequestBytes: deps.settings.maxRequestBytes,
    defaultProjectName: deps.settings.defaultProjectName,
  });
  return [
    {
      method: 'POST',
      path: '/v1/traces',
      permission: restPermission('POST', '/v1/traces'),
      body: 'raw',
      handler: (ctx: Koa.Context) => middleware(ctx, async () => undefined),
    },
  ];
};
