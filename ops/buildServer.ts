import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { createModelClient } from '../adapters/outbound/modelClient.ts';
import { createApp, type App } from '../api/createApp.ts';
import type { AppDeps } from '../api/appDeps.ts';
import { otlpRoutes } from '../api/otlpRoutes.ts';
import { healthRoutes } from '../api/health.ts';
import { createMetrics } from '../api/metrics/metrics.ts';
import { metricsRoutes } from '../api/metrics/metricsRoutes.ts';
import { allRoutes } from '../api/routes.ts';
import { uiNotFound, uiRoutes } from '../api/ui/serveUi.ts';
import { grpcAuthenticate } from '../api/identity/grpcAuthenticate.ts';
import { loadProjectAccess } from '../api/http/projectAccess.ts';
import type { Principal } from '../domain/access/principal.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { PasswordCost } from '../domain/identity/passwords.ts';
import { startOtlpGrpcServer } from '../ingest/grpcServer.ts';
import { createIngestBudget } from '../ingest/ingestBudget.ts';
import { countBudgetRefusals } from '../ingest/countBudgetRefusals.ts';
import { gateBudgetOnLag } from '../ingest/lagGate.ts';
import { logGateChanges } from '../ingest/lagGateLog.ts';
import { createLagMonitor } from '../projections/projectionLag.ts';
import { createExportDecoder } from '../ingest/exportDecoder.ts';
import type { SpanSink } from '../ingest/spanSink.ts';
import { allProjections } from '../projections/allProjections.ts';
import { ensureTracingLayout } from '../projections/tracing/tracingLayout.ts';
import { isTracingPartition } from '../projections/tracing/tracingPartitions.ts';
import { sealedSecretValues } from '../projections/secrets/secretValueQueries.ts';
import type { LiveModel } from '../projections/liveModel.ts';
import { migrate } from '../projections/migrate.ts';
import { createProjectionRunner, ProjectionStoppedError, type ProjectionRunner } from '../projections/projectionRunner.ts';
import { createReadModelLease, ownerLabel } from '../projections/readModelLease.ts';
import { createReactorRunner, type ReactorRunner } from '../projections/reactors/reactorRunner.ts';
import { createReactors } from './createReactors.ts';
import { wakingStore } from './wakingStore.ts';
import { createSpanSearchIndexer, type SpanSearchIndexer } from '../projections/tracing/spanSearchIndexer.ts';
import { startAnalyzeLoop } from './analyzeLoop.ts';
import { startWalCheckpoints } from './database/walCheckpoints.ts';
import { bootstrapIdentity } from './bootstrapIdentity.ts';
import { createCodeSandbox } from '../domain/evaluators/codeSandbox.ts';
import { ensureProject } from '../domain/projects/ensureProject.ts';
import { tracingPartitionCount, type Config } from './config.ts';
import { createIdentity } from './createIdentity.ts';
import { awaitEventLog } from './awaitEventLog.ts';
import { createConfiguredEventStore } from './createConfiguredEventStore.ts';
import { allMigrations } from './database/allMigrations.ts';
import { openConfiguredDatabase } from './database/openConfiguredDatabase.ts';
import type { Database } from './database/openDatabase.ts';
import { createLogger } from './logger.ts';
import { closeServer, listen } from './http/listen.ts';
import { PHOENIX_API_LEVEL } from './serverVersion.ts';
import { createSpanSink } from './createSpanSink.ts';

export type BuildOptions = {
  readonly logger?: Logger;
  /** An already open database (tests; two servers sharing one PGlite). Not closed by stop(). */
  readonly database?: Database;
  /** argon2id cost; tests pass a tiny one (the default costs ~130 ms per hash). */
  readonly passwordCost?: PasswordCost;
  /** How often an unreachable event log is tried again at start (default 2 s). */
  readonly eventLogRetryMs?: number;
};

export type RunningServer = {
  readonly config: Config;
  readonly logger: Logger;
  readonly database: Database;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly reactors: ReactorRunner;
  /** Writes the search words of new spans behind the tracing projection (search trails ingest). */
  readonly spanSearch: SpanSearchIndexer;
  readonly app: App;
  readonly ports: { readonly http: number; readonly otlpHttp: number; readonly grpc: number };
  /** Browser-facing base URL including the root path. */
  readonly url: string;
  /** Where the event log lives (never with credentials). */
  readonly eventLog: string;
  /** SIGTERM: /readyz answers 503, listeners stop accepting, in-flight requests finish, then everything closes. */
  stop(): Promise<void>;
};

/**
 * Longest sleep of the read model runner and the reactor lanes while the log is quiet, on PGlite
 * (one process: every append wakes them). Idle servers (a test file starts several) then look at
 * their database about once a second per loop instead of four to ten times; a reactor's schedule
 * (alerts every second) runs at most this much late.
 */
const IDLE_SLEEP_MAX_MS = 1000;

/** The composition root: database, migrations, event store, projections, HTTP, OTLP HTTP and gRPC. */
export const buildServer = async (config: Config, options: BuildOptions = {}): Promise<RunningServer> => {
  const logger = options.logger ?? createLogger(config.log.level);
  const database = options.database ?? (await openConfiguredDatabase(config));
  const closers: Array<() => Promise<void>> = [];
  if (!options.database) closers.push(() => database.close());
  try {
    await migrate(database.pool, allMigrations());
    const metrics = createMetrics();
    const log = createConfiguredEventStore(config, database.pool);
    closers.push(log.close);
    const httpPort = await awaitEventLog({
      store: log.store,
      description: log.description,
      logger,
      host: config.http.host,
      port: config.http.port,
      rootPath: config.http.rootPath,
      retryMs: options.eventLogRetryMs,
    });
    // Every append of this process wakes the runner and the reactor lanes (wired in below): on
    // PGlite, where no other process appends, they may then sleep long while the log is quiet.
    let wakeLoops = () => {};
    const store = wakingStore(metrics.instrumentStore(log.store), () => wakeLoops());
    const maxIdleMs = database.kind === 'pglite' ? IDLE_SLEEP_MAX_MS : undefined;
    const identity = createIdentity(config, { passwordCost: options.passwordCost });
    for (const warning of identity.warnings) logger.warn(warning);
    const liveModels: LiveModel[] = [identity.liveModel];
    // Several processes may share a PostgreSQL database: each read model is applied by one of them
    // (docs/ARCHITECTURE.md, "Running several processes"). PGlite is one process by nature.
    const label = ownerLabel(process.pid, hostname());
    const lease = database.kind === 'postgres' ? createReadModelLease(database.pool, { label }) : undefined;
    // The tracing read model in partitions (SERVICE_TRACING_PARTITIONS): tables laid out for the count first.
    const tracingPartitions = tracingPartitionCount(config.database);
    await ensureTracingLayout(database.pool, tracingPartitions);
    const runner = createProjectionRunner({
      store,
      pool: database.pool,
      projections: allProjections(tracingPartitions),
      liveModels,
      logger,
      lease,
      label,
      maxIdleMs,
    });
    await runner.start();
    closers.unshift(() => runner.stop());
    let publicUrl = config.http.rootUrl ?? `http://localhost:${config.http.port}${config.http.rootPath}`;
    // The outbound port for model providers: the playground, LLM evaluators and any reactor call through it.
    const models = createModelClient({
      settings: config.playground,
      sealedSecrets: (names) => sealedSecretValues(database.pool, names),
      keyring: identity.services.keyring,
      logger,
    });
    // Evaluator code runs on a WebAssembly engine in a thread of its own (domain/evaluators/codeSandbox.ts).
    const sandbox = createCodeSandbox();
    closers.unshift(() => sandbox.close());
    // Reactors (projections/reactors/): each runs on a lane of its own, in one process among replicas (its own lock).
    const reactors = createReactorRunner({
      store,
      pool: database.pool,
      reactors: createReactors({
        config,
        store,
        pool: database.pool,
        sealInputs: log.sealInputs,
        embedded: database.kind === 'pglite',
        logger,
        keyring: identity.services.keyring,
        // Known once the HTTP listener has its port (port 0 picks one); notifications go out after that.
        publicUrl: () => publicUrl,
        models,
        sandbox,
      }),
      readModels: runner,
      lease: database.kind === 'postgres' ? createReadModelLease(database.pool, { label }) : undefined,
      maxIdleMs,
      logger,
    });
    wakeLoops = () => {
      runner.wake();
      reactors.wake();
    };
    await reactors.start();
    closers.unshift(() => reactors.stop());
    const lag = createLagMonitor({
      store,
      runner,
      onError: (error) => logger.debug({ err: error }, 'projection lag sample failed'),
    });
    closers.unshift(async () => lag.stop());
    metrics.watchLag(lag);
    // Full-text search trails the spans (projections/tracing/spanTextSearch.ts): its words are
    // written after the spans, giving way while the tracing projection has events to apply.
    const spanSearch = createSpanSearchIndexer({
      pool: database.pool,
      // PGlite is one session: a step of 250 spans holds it (the projection and every query wait)
      // for about a sixth of a second of CPU.
      chunk: database.kind === 'pglite' ? 250 : 1000,
      busy: () => lag.current().some((l) => isTracingPartition(l.name) && l.events > 0),
      onError: (error) => logger.warn({ err: error }, 'span search indexing failed; retrying'),
    });
    spanSearch.start();
    closers.unshift(() => spanSearch.stop());
    // A read model stopped at a poison event must not keep the server from starting: it is
    // reported by /readyz and the log (the live auth state has the events when this is thrown).
    const unlessStopped = (error: unknown) => {
      if (!(error instanceof ProjectionStoppedError)) throw error;
    };
    if (config.auth.enabled) {
      const bootstrapped = await bootstrapIdentity({ store, passwords: identity.services.passwords, auth: config.auth, logger });
      // The auth state must know the system user before the first request.
      if (bootstrapped !== null) await runner.waitFor(bootstrapped, 30_000).catch(unlessStopped);
      // Sessions and keys revoked while this process was down must not be honoured after it starts:
      // apply what the log holds before serving (bounded, so a large backlog only delays readiness).
      await runner.waitFor(await store.headPosition(), 10_000).catch((error: unknown) => {
        if (!(error instanceof ProjectionStoppedError)) logger.warn('auth state still catching up with the event log');
      });
    }

    // A fresh server lists its default project, as Phoenix does, before any span arrives.
    const defaultProject = await ensureProject(store, config.projects.defaultName, { actor: 'system', requestId: null });
    if (defaultProject.created) await runner.waitFor(defaultProject.created, 30_000).catch(unlessStopped);

    const stopAnalyze = startAnalyzeLoop(database.pool, logger);
    closers.unshift(async () => stopAnalyze());
    if (database.kind === 'pglite') {
      // No checkpointer in embedded PGlite: without these its WAL grows to max_wal_size (walCheckpoints.ts).
      const stopCheckpoints = startWalCheckpoints(database.pool, logger);
      closers.unshift(async () => stopCheckpoints());
    }

    const inFlight = createIngestBudget({ maxInFlightRequests: 64, maxInFlightBytes: config.http.otlpMaxInFlightBytes });
    const budget = gateBudgetOnLag(
      countBudgetRefusals(inFlight, () => metrics.ingestRefused('in_flight_budget')),
      {
        maxLagSeconds: config.http.otlpMaxProjectionLagSeconds,
        lagSeconds: lag.runningLagSeconds,
        onRefused: () => metrics.ingestRefused('projection_lag'),
        onHeld: () => metrics.ingestHeld('projection_lag'),
        onChange: logGateChanges(logger),
      },
    );
    // One decoding thread: with the main thread that makes two busy cores, what small hosts have.
    // Its heap limit fits a 50,000-span request (~450 MiB decoded) and a 64 MiB body of realistic
    // spans (<256 MiB); a body of hundreds of thousands of tiny spans gets 413 instead of the RAM.
    // Bodies under 4 MiB (an SDK batch of 512 LLM spans is ~2.5 MB) decode inline in well under
    // 100 ms: the round trip to the worker would cost them more CPU than it saves latency.
    const decoder = createExportDecoder({ workers: 1, offThreadFromBytes: 4 * 1024 * 1024, maxHeapMb: 768 });
    closers.unshift(() => decoder.close());
    const pace = {
      timeoutMs: config.http.otlpBodyTimeoutSeconds * 1000,
      minBytesPerSecond: config.http.otlpMinBodyBytesPerSecond,
      graceMs: 5000,
    };

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
        checkResponses: config.http.checkResponses,
        defaultProjectName: config.projects.defaultName,
        auth: identity.settings,
      },
      authenticate: authenticator.authenticate,
      identity: identity.services,
      spanIngest: { budget, decoder, pace },
      isDraining: () => draining,
      metrics,
      lag,
      models,
      retention: { defaultDays: config.retention.defaultDays },
      alerts: config.alerts,
      evaluators: { sandbox },
    };
    const sink: SpanSink<Principal | null> = metrics.instrumentSink(createSpanSink(store));
    const otlp = otlpRoutes(deps, sink);
    // Filled in once the OTLP listeners have their ports (port 0 picks one).
    let otlpPorts: { http: number; grpc: number } | null = null;
    // The web UI last: its page paths never shadow an API route.
    const uiOptions = {
      otlpPorts: () => otlpPorts,
      defaultProjectName: config.projects.defaultName,
      distDir: fileURLToPath(new URL('../ui/dist', import.meta.url)),
      managementUrl: config.auth.managementUrl,
      managementAdmins: config.auth.admins.map((admin) => admin.email),
    };
    const ui = uiRoutes(deps, uiOptions);
    const app = createApp(deps, [...allRoutes(deps), ...metricsRoutes(metrics), ...otlp, ...ui], uiNotFound(deps, uiOptions));
    // The dedicated OTLP port serves /v1/traces at its root, whatever the UI's root path.
    const otlpApp = createApp({ ...deps, settings: { ...deps.settings, rootPath: '' } }, [...healthRoutes(deps), ...otlp]);

    const httpServer = await listen(app.koa, config.http.host, httpPort);
    closers.unshift(() => closeServer(httpServer));
    const otlpServer = await listen(otlpApp.koa, config.http.host, config.http.otlpHttpPort);
    closers.unshift(() => closeServer(otlpServer));
    const grpc = await startOtlpGrpcServer<Principal | null>({
      host: config.http.host,
      port: config.http.grpcPort,
      sink,
      budget,
      decoder,
      maxRequestBytes: config.http.maxRequestBytes,
      defaultProjectName: config.projects.defaultName,
      authenticate: grpcAuthenticate(authenticator, async (principal) => (await loadProjectAccess(database.pool, principal)).grants),
      reportError: (error) => logger.error({ err: error }, 'gRPC export failed'),
    });
    closers.unshift(() => grpc.close());

    const ports = {
      http: (httpServer.address() as AddressInfo).port,
      otlpHttp: (otlpServer.address() as AddressInfo).port,
      grpc: grpc.port,
    };
    otlpPorts = { http: ports.otlpHttp, grpc: ports.grpc };
    const shownHost = config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
    const url = config.http.rootUrl ?? `http://${shownHost}:${ports.http}${config.http.rootPath}`;
    publicUrl = url;
    let stopping: Promise<void> | null = null;
    return {
      config,
      logger,
      database,
      store,
      runner,
      reactors,
      spanSearch,
      app,
      ports,
      url,
      eventLog: log.description,
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
