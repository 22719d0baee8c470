import type { Config } from './config.ts';

export type BannerFacts = {
  readonly config: Config;
  /** The browser-facing URL (root path included). */
  readonly url: string;
  readonly ports: { readonly http: number; readonly otlpHttp: number; readonly grpc: number };
  /** Where the SQL database is, without credentials ("embedded PGlite at …" or a redacted URL). */
  readonly database: string;
  /** Where the event log is, without credentials. */
  readonly eventLog: string;
};

/**
 * What `loupe serve` prints once it listens, for a person rather than a log collector: where to
 * open it, where to send traces, where the data lives and whether anyone may walk in. The
 * structured lines stay in the log (level info and up); this goes to stdout as plain text.
 */
export const startBanner = ({ config, url, ports, database, eventLog }: BannerFacts): string => {
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
  const embedded = config.database.sqlDatabaseUrl === null;
  const rows: [string, string][] = [
    ['OTLP traces', `http://${host}:${ports.otlpHttp}/v1/traces (also ${url}/v1/traces), gRPC ${host}:${ports.grpc}`],
    ['Database', embedded ? `${database}: your traces, datasets and users live there` : `PostgreSQL ${database}`],
  ];
  if (config.database.eventStoreUrl !== null) rows.push(['Event log', eventLog]);
  rows.push(
    config.auth.enabled
      ? ['Auth', `on: sign in at ${url}/login; clients send an API key (Settings → API keys)`]
      : ['Auth', 'off: anyone who reaches these ports reads and writes (SERVICE_ENABLE_AUTH=true turns it on)'],
    [
      'Logs',
      `${config.log.level}${config.log.level === 'debug' || config.log.level === 'trace' ? ', one line per request' : '; SERVICE_LOG_LEVEL=debug adds one line per request'}`,
    ],
  );
  const width = Math.max(...rows.map(([label]) => label.length));
  return ['', `  Loupe is running at ${url}`, ...rows.map(([label, text]) => `    ${label.padEnd(width)}  ${text}`), '', ''].join('\n');
};
