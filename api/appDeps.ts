import type Koa from 'koa';
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Principal } from '../domain/access/principal.ts';
import type { CodeSandbox } from '../domain/evaluators/codeSandbox.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { ModelClient } from '../domain/modelCalls/modelCall.ts';
import type { ExportDecoder } from '../ingest/exportDecoder.ts';
import type { IngestBudget } from '../ingest/ingestBudget.ts';
import type { BodyPace } from '../ingest/readBody.ts';
import type { LagMonitor } from '../projections/projectionLag.ts';
import type { ProjectionRunner } from '../projections/projectionRunner.ts';
import type { AuthSettings } from './identity/authSettings.ts';
import type { IdentityServices } from './identity/identityServices.ts';
import type { Metrics } from './metrics/metrics.ts';

export type AppSettings = {
  /** '' or '/some/path' (no trailing slash): every route lives under it. */
  readonly rootPath: string;
  /** The Phoenix API level we implement; official clients gate features on it. */
  readonly serverVersion: string;
  readonly maxRequestBytes: number;
  /** Check REST answers against their declared response schemas (tests, development): `SERVICE_CHECK_RESPONSES`. */
  readonly checkResponses?: boolean;
  readonly defaultProjectName: string;
  readonly auth: AuthSettings;
};

/**
 * What every request that brings spans goes through, whichever route it takes (OTLP/HTTP,
 * `POST /v1/projects/{id}/spans`; gRPC gets the same budget and decoder): one in-flight budget
 * with the projection-lag gate in front of it, one decoder (large bodies off the main thread),
 * one pace a body must arrive at.
 */
export type SpanIngest = {
  readonly budget: IngestBudget;
  readonly decoder: ExportDecoder;
  readonly pace: BodyPace;
};

/** Everything the app needs, passed in: no module-level singletons, so tests build servers in-process. */
export type AppDeps = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly runner: ProjectionRunner;
  readonly logger: Logger;
  readonly settings: AppSettings;
  /** Who is asking: null = no valid credential (401 on protected routes). */
  readonly authenticate: (ctx: Koa.Context) => Promise<Principal | null>;
  /** Auth state, password hashing, tokens, mail and secret sealing for the identity routes. */
  readonly identity: IdentityServices;
  readonly spanIngest: SpanIngest;
  /** Set by the server on SIGTERM so /readyz answers 503 while in-flight requests finish. */
  readonly isDraining: () => boolean;
  /** Prometheus metrics (the server sets them; tests may leave them out). */
  readonly metrics?: Metrics;
  /** Each read model's sampled lag, for /readyz. */
  readonly lag?: LagMonitor;
  /** The default trace retention policy (`SERVICE_DEFAULT_RETENTION_POLICY_DAYS`; 0 keeps for ever). Left out: 0. */
  readonly retention?: { readonly defaultDays: number };
  /** The outbound port for model providers (adapters/outbound/modelClient.ts): the playground calls through it. */
  readonly models: ModelClient;
  /** Alert rules: the default evaluation interval and the inward URLs allowed (defaults when left out: 60 s, none). */
  readonly alerts?: { readonly evaluationIntervalSeconds: number; readonly allowedUrls: readonly string[] };
  /** The sandbox evaluator code runs in (and is compiled in when it is created). */
  readonly evaluators: { readonly sandbox: CodeSandbox };
};
