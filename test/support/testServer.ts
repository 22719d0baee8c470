import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildServer, type RunningServer } from '../../ops/buildServer.ts';
import { loadConfig } from '../../ops/config.ts';
import { createLogger } from '../../ops/logger.ts';
import { freshMigratedDatabase, type TestDatabase } from './database.ts';
import { TEST_PASSWORD_COST } from './testIdentity.ts';

export type TestServer = RunningServer & {
  /** `http://127.0.0.1:<port><root path>` */
  readonly baseUrl: string;
  readonly otlpHttpUrl: string;
  readonly grpcPort: number;
  readonly pool: RunningServer['database']['pool'];
  /** Every JSON log line the server wrote (tests scan them, e.g. for secrets). */
  readonly logLines: string[];
  /** Stops the server and, unless the database was passed in, drops the database. */
  close(): Promise<void>;
};

export type TestServerOptions = {
  /** SERVICE_* variables on top of the test defaults (random ports, loopback, temp working dir). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Share a database between servers (restart or two-process tests). With PGlite the same
   * Database object must be shared: PGlite is one session and its driver serialises on it.
   */
  readonly database?: TestDatabase;
  /** How often an unreachable event log is tried again at start (buildServer's default: 2 s). */
  readonly eventLogRetryMs?: number;
};

/** The whole server in-process on random ports, on a fresh database of the selected backend. */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-test-'));
  const database = options.database ?? (await freshMigratedDatabase());
  const config = loadConfig({
    ...(database.eventStoreUrl ? { SERVICE_EVENTSTORE_URL: database.eventStoreUrl } : {}),
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    SERVICE_GRPC_PORT: '0',
    SERVICE_OTLP_HTTP_PORT: '0',
    SERVICE_WORKING_DIR: workingDir,
    SERVICE_LOG_LEVEL: 'info',
    // Every HTTP spec checks the answers against the routes' declared response schemas.
    SERVICE_CHECK_RESPONSES: 'true',
    ...options.env,
  });
  const logLines: string[] = [];
  const capture = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const server = await buildServer(config, {
    database,
    logger: createLogger(config.log.level, capture),
    passwordCost: TEST_PASSWORD_COST,
    eventLogRetryMs: options.eventLogRetryMs,
  });
  const baseUrl = `http://127.0.0.1:${server.ports.http}${config.http.rootPath}`;
  return {
    ...server,
    baseUrl,
    otlpHttpUrl: `http://127.0.0.1:${server.ports.otlpHttp}/v1/traces`,
    grpcPort: server.ports.grpc,
    pool: database.pool,
    logLines,
    close: async () => {
      await server.stop();
      if (!options.database) await database.close();
      await rm(workingDir, { recursive: true, force: true });
    },
  };
};
