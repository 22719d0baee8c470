import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp, type App } from '../api/createApp.ts';
import type { AppDeps } from '../api/appDeps.ts';
import { otlpRoutes } from '../api/otlpRoutes.ts';
import { healthRoutes } from '../api/health.ts';
import { allRoutes } from '../api/routes.ts';
import { grpcAuthenticate } from '../api/auth/grpcAuthenticate.ts';
import type { Principal } from '../domain/access/principal.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { PasswordCost } from '../domain/identity/passwords.ts';
import { startOtlpGrpcServer } from '../ingest/grpcServer.ts';
import { createIngestBudget } from '../ingest/ingestBudget.ts';
import type { SpanSink } from '../ingest/spanSink.ts';
import { allProjections } from '../projections/allProjections.ts';
import type { LiveModel } from '../projections/liveModel.ts';
import { migrate } from '../projections/migrate.ts';
import { createProjectionRunner, type ProjectionRunner } from '../projections/projectionRunner.ts';
import { startAnalyzeLoop } from './analyzeLoop.ts';
import { bootstrapIdentity } from './bootstrapIdentity.ts';
import { ensureProject } from '../domain/projects/ensureProject.ts';
import type { Config } from './config.ts';
import { createIdentity } from './createIdentity.ts';
import { createConfiguredEventStore } from './createConfiguredEventStore.ts';
import { allMigrations } from './database/allMigrations.ts';
import { openConfiguredDatabase } from './database/openConfiguredDatabase.ts';
import type { Database } from './database/openDatabase.ts';
import { createLogger } from './logger.ts';
import { closeServer, listen } from './http/listen.ts';
import { PHOENIX_API_LEVEL } from './serverVersion.ts';
import { createSpanSink } from './spanSink.ts';

export type BuildOptions = {
  readonly logger?: Logger;
  /** An already open database (tests; two servers sharing one PGlite). Not closed by stop(). */
  readonly database?: Database;
  /** argon2id cost; tests pass a tiny one (the default costs ~130 ms per hash). */
  readonly passwordCost?: PasswordCost;
};

export type RunningServer = {
  readonly config: Config;
  readonly logger: Logger;
  readonly database: Database;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly app: App;
  readonly ports: { readonly http: number; readonly otlpHttp: number; readonly grpc: number };
  /** Browser-facing base URL including the root path. */
  readonly url: string;
  /** SIGTERM: /readyz answers 503, listeners stop accepting, in-flight requests finish, then everything closes. */
  stop(): Promise<void>;
};

/** The composition root: database, migrations, event store, projections, HTTP, OTLP HTTP and gRPC. */
export const buildServer = async (config: Config, options: BuildOptions = {}): Promise<RunningServer> => {
  const logger = options.logger ?? createLogger(config.log.level);
  const database = options.database ?? (await openConfiguredDatabase(config));
  const closers: Array<() => Promise<void>> = [];
  if (!options.database) closers.push(() => database.close());
  try {
    await migrate(database.pool, allMigrations());
    const store = createConfiguredEventStore(config, database.pool);
    const identity = createIdentity(config, { passwordCost: options.passwordCost });
    const liveModels: LiveModel[] = [identity.liveModel];
    const runner = createProjectionRunner({ store, pool: database.pool, projections: allProjections(), liveModels, logger });
    await runner.start();
    closers.unshift(() => runner.stop());
    if (config.auth.enabled) {
      const bootstrapped = await bootstrapIdentity({ store, passwords: identity.services.passwords, auth: config.auth, logger });
      // The auth state must know the system user before the first request.
      if (bootstrapped !== null) await runner.waitFor(bootstrapped, 30_000);
      // Sessions and keys revoked while this process was down must not be honoured after it starts:
      // apply what the log holds before serving (bounded, so a large backlog only delays readiness).
      await runner.waitFor(await store.headPosition(), 10_000).catch(() => logger.warn('auth state still catching up with the event log'));
    }

    // A fresh server lists its default project, as Phoenix does, before any span arrives.
    const defaultProject = await ensureProject(store, config.projects.defaultName, { actor: 'system', requestId: null });
    if (defaultProject.created) await runner.waitFor(defaultProject.created, 30_000);

    const stopAnalyze = startAnalyzeLoop(database.pool, logger);
    closers.unshift(async () => stopAnalyze());

    let draining = false;
    const authenticator = identity.authenticator(store, runner);
    const deps: AppDeps = {
      store,
      pool: database.pool,
      runner,
      logger,
      settings: {
        rootPath: config.http.rootPath,
        serverVersion: PHOENIX_API_LEVEL,
        maxRequestBytes: config.http.maxRequestBytes,
        defaultProjectName: config.projects.defaultName,
        auth: identity.settings,
      },
      authenticate: authenticator.authenticate,
      identity: identity.services,
      isDraining: () => draining,
    };
    const sink: SpanSink<Principal | null> = createSpanSink(store);
    const budget = createIngestBudget({ maxInFlightRequests: 64, maxInFlightBytes: 512 * 1024 * 1024 });
    const otlp = otlpRoutes(deps, { sink, budget });
    const app = createApp(deps, [...allRoutes(deps), ...otlp]);
    // The dedicated OTLP port serves /v1/traces at its root, whatever the UI's root path.
    const otlpApp = createApp({ ...deps, settings: { ...deps.settings, rootPath: '' } }, [...healthRoutes(deps), ...otlp]);

    const httpServer = await listen(app.koa, config.http.host, config.http.port);
    closers.unshift(() => closeServer(httpServer));
    const otlpServer = await listen(otlpApp.koa, config.http.host, config.http.otlpHttpPort);
    closers.unshift(() => closeServer(otlpServer));
    const grpc = await startOtlpGrpcServer<Principal | null>({
      host: config.http.host,
      port: config.http.grpcPort,
      sink,
      budget,
      maxRequestBytes: config.http.maxRequestBytes,
      defaultProjectName: config.projects.defaultName,
      authenticate: grpcAuthenticate(authenticator),
      reportError: (error) => logger.error({ err: error }, 'gRPC export failed'),
    });
    closers.unshift(() => grpc.close());

    const ports = {
      http: (httpServer.address() as AddressInfo).port,
      otlpHttp: (otlpServer.address() as AddressInfo).port,
      grpc: grpc.port,
    };
    const shownHost = config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
    const url = config.http.rootUrl ?? `http://${shownHost}:${ports.http}${config.http.rootPath}`;
    let stopping: Promise<void> | null = null;
    return {
      config,
      logger,
      database,
      store,
      runner,
      app,
      ports,
      url,
      stop: () => {
        draining = true;
        stopping ??= (async () => {
          for (const close of closers) await close().catch((error) => logger.error({ err: error }, 'shutdown step failed'));
        })();
        return stopping;
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    throw error;
  }
};
