import type Koa from 'koa';
import { restPermission } from '../domain/access/restPermission.ts';
import type { Principal } from '../domain/access/principal.ts';
import { createOtlpHttpMiddleware } from '../ingest/otlpHttp.ts';
import type { ExportDecoder } from '../ingest/exportDecoder.ts';
import type { IngestBudget } from '../ingest/ingestBudget.ts';
import type { BodyPace } from '../ingest/readBody.ts';
import type { SpanSink } from '../ingest/spanSink.ts';
import type { AppDeps } from './appDeps.ts';
import type { RouteDef } from './http/route.ts';

export type OtlpDeps = {
  readonly sink: SpanSink<Principal | null>;
  readonly budget: IngestBudget;
  readonly decoder?: ExportDecoder;
  readonly pace?: BodyPace;
};

/** `POST /v1/traces`: the OTLP/HTTP receiver, on the main port and on the OTLP port. */
export const otlpRoutes = (deps: AppDeps, otlp: OtlpDeps): RouteDef[] => {
  const middleware = createOtlpHttpMiddleware<Principal | null>({
    sink: otlp.sink,
    budget: otlp.budget,
    decoder: otlp.decoder,
    pace: otlp.pace,
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
