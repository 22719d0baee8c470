/**
 * What a newcomer copies to send traces to this server: its OTLP endpoints and a register call
 * for Phoenix's own OpenTelemetry helpers (TypeScript and Python), filled in with this server's
 * URL and the project's name. With auth on, each snippet reads the key from PHOENIX_API_KEY.
 */

export type Endpoints = {
  /** The app's own URL (root path included): OTLP/HTTP is served at `${base}/v1/traces`. */
  readonly base: string;
  /** The dedicated OTLP/HTTP port's endpoint, when known. */
  readonly otlpHttp: string | null;
  /** `host:port` of OTLP/gRPC, when known. */
  readonly grpc: string | null;
};

export const endpointsOf = (
  location: { protocol: string; hostname: string; origin: string },
  rootPath: string,
  otlp: { httpPort: number; grpcPort: number } | null,
): Endpoints => ({
  base: `${location.origin}${rootPath}`,
  otlpHttp: otlp === null ? null : `${location.protocol}//${location.hostname}:${otlp.httpPort}/v1/traces`,
  grpc: otlp === null ? null : `${location.hostname}:${otlp.grpcPort}`,
});

/** A string as a JavaScript / Python literal (a project name may hold quotes). */
const literal = (value: string): string => JSON.stringify(value);

export const typescriptSnippet = (endpoints: Endpoints, projectName: string, auth: boolean): string =>
  [
    'npm install @arizeai/phoenix-otel',
    '',
    "import { register } from '@arizeai/phoenix-otel';",
    '',
    'const provider = register({',
    `  projectName: ${literal(projectName)},`,
    `  url: ${literal(endpoints.base)},`,
    ...(auth ? ['  apiKey: process.env.PHOENIX_API_KEY,'] : []),
    '});',
  ].join('\n');

export const pythonSnippet = (endpoints: Endpoints, projectName: string, auth: boolean): string =>
  [
    'pip install arize-phoenix-otel',
    '',
    ...(auth ? ['# PHOENIX_API_KEY in the environment is sent as the bearer token', ''] : []),
    'from phoenix.otel import register',
    '',
    'tracer_provider = register(',
    `    project_name=${literal(projectName)},`,
    `    endpoint=${literal(`${endpoints.base}/v1/traces`)},`,
    '    auto_instrument=True,',
    ')',
  ].join('\n');

/** Any OpenTelemetry SDK: the standard environment variables, as shell exports. */
export const environmentSnippet = (endpoints: Endpoints, projectName: string, auth: boolean): string =>
  [
    `export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="${endpoints.base}/v1/traces"`,
    `export OTEL_RESOURCE_ATTRIBUTES="openinference.project.name=${encodeURIComponent(projectName)}"`,
    ...(auth ? ['export OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20$PHOENIX_API_KEY"'] : []),
  ].join('\n');

/** How a freshly made key is used: in the environment of Phoenix's clients, or as a header. */
export const keyUsageSnippet = (base: string, key: string): string =>
  [
    `export PHOENIX_API_KEY=${key}`,
    `export PHOENIX_COLLECTOR_ENDPOINT=${base}`,
    '',
    '# any HTTP client: the key as a bearer token',
    `curl -H "Authorization: Bearer $PHOENIX_API_KEY" ${base}/v1/projects`,
  ].join('\n');
