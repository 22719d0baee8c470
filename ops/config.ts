import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LdapSettings } from '../api/identity/ldap/ldapSettings.ts';
import type { OAuth2ProviderSettings } from '../api/identity/oauth2/oauth2Settings.ts';
import type { ModelProviderSettings } from '../adapters/outbound/modelProviderSettings.ts';
import { canonicalBaseUrl, parseAllowedUrls } from '../domain/base/outboundUrl.ts';
import { PLAYGROUND_PROVIDERS } from '../domain/playground/playgroundProvider.ts';
import { isValidEmail, normaliseEmail } from '../domain/identity/email.ts';
import { readLdap } from './config/ldapConfig.ts';
import { readOAuth2Providers } from './config/oauth2Config.ts';
import { MAX_TRACING_PARTITIONS } from '../projections/tracing/tracingPartitions.ts';

/**
 * Every `SERVICE_*` variable, read and validated once. This is the only module that reads the
 * environment: everything else receives the slice of `Config` it needs.
 *
 * Values are trimmed; an empty value counts as unset. All problems are collected before failing,
 * so an operator fixes a deployment in one round. A problem message never repeats the value of a
 * secret, a password or a URL (URLs may carry credentials).
 */

export type Env = Readonly<Record<string, string | undefined>>;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const SMTP_TLS_MODES = ['starttls', 'tls', 'none'] as const;
export type SmtpTlsMode = (typeof SMTP_TLS_MODES)[number];

export interface HttpConfig {
  readonly host: string;
  /** 0 asks the OS for a free port (tests); the server must then report the port it got. */
  readonly port: number;
  readonly grpcPort: number;
  readonly otlpHttpPort: number;
  /** '' or a path with a leading slash and no trailing slash, e.g. '/loupe'. */
  readonly rootPath: string;
  /** The browser-facing URL without a trailing slash, or null when unset. */
  readonly rootUrl: string | null;
  /**
   * `SERVICE_TRUST_PROXY`: believe X-Forwarded-Proto/Host/For (only behind a proxy that sets
   * them). Off, any client could name the host that reset links point at.
   */
  readonly trustProxy: boolean;
  readonly maxRequestBytes: number;
  /** OTLP bodies held in memory at once, all receivers together (inflated bytes, counted as they arrive). */
  readonly otlpMaxInFlightBytes: number;
  /** The whole OTLP/HTTP request body must arrive within this. */
  readonly otlpBodyTimeoutSeconds: number;
  /** After the first 5 s, an OTLP/HTTP body arriving slower than this on average is refused (408). */
  readonly otlpMinBodyBytesPerSecond: number;
  /** Past this projection lag (age of the oldest span not yet visible), exports are refused with 503/RESOURCE_EXHAUSTED; 0 = never. */
  readonly otlpMaxProjectionLagSeconds: number;
  /**
   * `SERVICE_CHECK_RESPONSES`: check every REST answer against its route's declared response
   * schema (a 500 naming the mismatch). On in the tests and for development; off in production,
   * where it would only cost time.
   */
  readonly checkResponses: boolean;
}

export interface DatabaseConfig {
  /** Absolute; holds the embedded database when no SQL URL is given. */
  readonly workingDir: string;
  /** postgres:// URL, or null for embedded PGlite in `workingDir`. */
  readonly sqlDatabaseUrl: string | null;
  /** EventStoreDB / KurrentDB connection string, or null to keep the log in SQL. */
  readonly eventStoreUrl: string | null;
  /**
   * In how many partitions the tracing read model is applied (projections/tracing/tracingPartitions.ts),
   * as SERVICE_TRACING_PARTITIONS sets it; null: the default for the database (`tracingPartitionCount`).
   */
  readonly tracingPartitions: number | null;
}

/**
 * Partitions of the tracing read model when SERVICE_TRACING_PARTITIONS is not set: one, on either
 * backend, for now. Partitions are opt-in until a quiet bench:ingest shows what a count gains
 * (BENCHMARKS.md §26) and `loupe projections retry` of one partition stopped at a shared event
 * works (with 2, it waited for its siblings and timed out); embedded PGlite is one session, where
 * more than one only adds statements.
 */
export const DEFAULT_POSTGRES_TRACING_PARTITIONS = 1;

export const tracingPartitionCount = (database: DatabaseConfig): number =>
  database.tracingPartitions ?? (database.sqlDatabaseUrl ? DEFAULT_POSTGRES_TRACING_PARTITIONS : 1);

export interface AdminEntry {
  readonly username: string;
  /** Trimmed and lower-cased. */
  readonly email: string;
}

export interface AuthConfig {
  readonly enabled: boolean;
  readonly secret: string | null;
  readonly adminSecret: string | null;
  readonly useSecureCookies: boolean;
  /** Normalised origins (`scheme://host[:port]`); empty = CSRF protection off. */
  readonly csrfTrustedOrigins: readonly string[];
  readonly defaultAdminInitialPassword: string;
  readonly strongPasswordPolicy: boolean;
  readonly bruteForce: { readonly enabled: boolean; readonly maxAttempts: number };
  readonly disableBasicAuth: boolean;
  readonly tokenExpiryMinutes: {
    readonly access: number;
    readonly refresh: number;
    readonly passwordReset: number;
  };
  readonly admins: readonly AdminEntry[];
  readonly managementUrl: string | null;
}

export interface SmtpConfig {
  readonly hostname: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly mailFrom: string;
  /** starttls: upgrade required; tls: implicit TLS (port 465); none: plaintext, for tests. */
  readonly tlsMode: SmtpTlsMode;
  readonly validateCerts: boolean;
}

export interface Config {
  readonly http: HttpConfig;
  readonly database: DatabaseConfig;
  readonly log: { readonly level: LogLevel };
  readonly projects: { readonly defaultName: string };
  /** Trace retention: the default policy's days (0: keep for ever) and how often policies are applied. */
  readonly retention: { readonly defaultDays: number; readonly scheduleMinutes: number };
  readonly auth: AuthConfig;
  /** null when SERVICE_SMTP_HOSTNAME is unset: no email is sent. */
  readonly smtp: SmtpConfig | null;
  /** `SERVICE_OAUTH2_<IDP>_*` providers, sorted by name (ops/config/oauth2Config.ts). */
  readonly oauth2: readonly OAuth2ProviderSettings[];
  /** null when SERVICE_LDAP_HOST is unset (ops/config/ldapConfig.ts). */
  readonly ldap: LdapSettings | null;
  /** `SERVICE_PLAYGROUND_TIMEOUT_SECONDS` and the providers' own key variables (`OPENAI_API_KEY`, ...). */
  readonly playground: ModelProviderSettings;
  readonly audit: AuditConfig;
  readonly alerts: AlertsConfig;
}

/** Alert rules (domain/alerts/): how often a rule that names no interval is evaluated, and the inward URLs an operator allows. */
export interface AlertsConfig {
  readonly evaluationIntervalSeconds: number;
  /** `SERVICE_ALERTS_ALLOWED_URLS`: URL prefixes on loopback, private or link-local addresses that notifications may go to. */
  readonly allowedUrls: readonly string[];
}

export interface AuditConfig {
  /** What the audit chain's key is derived from: SERVICE_AUDIT_KEY, else SERVICE_SECRET, else null (unkeyed). */
  readonly secret: string | null;
  readonly secretFrom: 'SERVICE_AUDIT_KEY' | 'SERVICE_SECRET' | null;
}

export const DEFAULTS = Object.freeze({
  host: '0.0.0.0',
  port: 6006,
  grpcPort: 4317,
  otlpHttpPort: 4318,
  workingDir: '~/.loupe',
  projectName: 'default',
  logLevel: 'info' as LogLevel,
  maxRequestBytes: 64 * 1024 * 1024,
  otlpMaxInFlightBytes: 256 * 1024 * 1024,
  otlpBodyTimeoutSeconds: 60,
  otlpMinBodyBytesPerSecond: 16 * 1024,
  otlpMaxProjectionLagSeconds: 4,
  defaultAdminInitialPassword: 'admin',
  bruteForceMaxAttempts: 5,
  accessTokenExpiryMinutes: 10,
  refreshTokenExpiryMinutes: 7 * 24 * 60,
  passwordResetTokenExpiryMinutes: 15,
  smtpPort: { starttls: 587, tls: 465, none: 587 } as Readonly<Record<SmtpTlsMode, number>>,
  smtpMailFrom: 'noreply@localhost',
  playgroundTimeoutSeconds: 60,
});

export interface ConfigProblem {
  readonly variable: string;
  /** The rule broken, without the variable name. */
  readonly rule: string;
}

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

export const formatProblem = (problem: ConfigProblem): string => `${problem.variable}: ${problem.rule}`;

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);
const BOOLEAN_RULE = 'must be true or false (1/0 and yes/no are accepted too)';
const SQL_URL_SCHEMES = new Set(['postgres:', 'postgresql:']);
const EVENTSTORE_URL_SCHEMES = new Set(['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:', 'kdb:', 'kdb+discover:']);

/** Echoes a non-secret value in a problem message. */
const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);

/** Reads variables and records problems; each method returns a usable fallback on error. */
class Reader {
  readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: Env) {}

  problem(variable: string, rule: string): void {
    this.problems.push({ variable, rule });
  }

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    this.problem(name, `${BOOLEAN_RULE} (got ${quote(value)})`);
    return fallback;
  }

  integer(name: string, fallback: number, min: number, max: number, rule?: string): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    this.problem(name, `${rule ?? `must be an integer ${range}`} (got ${quote(value)})`);
    return fallback;
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 0, 65535, 'must be an integer from 1 to 65535 (or 0 for any free port)');
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    const match = allowed.find((candidate) => candidate === lower);
    if (match !== undefined) return match;
    this.problem(name, `must be one of ${allowed.join(', ')} (got ${quote(value)})`);
    return fallback;
  }

  /** An http(s) URL; returned without a trailing slash. A value that may hold credentials is not echoed. */
  httpUrl(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = parseUrl(value);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      const shown = value.includes('@') ? '(value not shown)' : `(got ${quote(value)})`;
      this.problem(name, `must be an absolute http:// or https:// URL with a host ${shown}`);
      return null;
    }
    if (url.username !== '' || url.password !== '') {
      this.problem(name, 'must not contain a user name or password');
      return null;
    }
    return value.replace(/\/+$/, '');
  }

  /** A URL whose value is never echoed: it may hold a password. */
  secretUrl(name: string, schemes: ReadonlySet<string>, expected: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = parseUrl(value);
    if (url === null || !schemes.has(url.protocol)) {
      this.problem(name, `must be ${expected} (value not shown)`);
      return null;
    }
    return value;
  }
}

const parseUrl = (value: string): URL | null => {
  try {
    return new URL(value);
  } catch {
    return null;
  }
};

/** Rules shared by SERVICE_SECRET and SERVICE_ADMIN_SECRET; lists every rule broken. */
const secretRuleBreaks = (value: string): string[] => {
  const breaks: string[] = [];
  if (value.length < 32) breaks.push('be at least 32 characters long');
  if (!/\d/.test(value)) breaks.push('contain at least one digit');
  if (!/[a-z]/.test(value)) breaks.push('contain at least one lowercase letter');
  if (/\s/.test(value)) breaks.push('contain no whitespace');
  if (/[^\x00-\x7f]/.test(value)) breaks.push('contain only ASCII characters');
  return breaks;
};

const readSecret = (r: Reader, name: string): string | null => {
  const value = r.raw(name);
  if (value === undefined) return null;
  const breaks = secretRuleBreaks(value);
  if (breaks.length > 0) {
    r.problem(name, `must ${joinRules(breaks)} (value not shown)`);
    return null;
  }
  return value;
};

const joinRules = (rules: readonly string[]): string =>
  rules.length <= 1 ? (rules[0] ?? '') : `${rules.slice(0, -1).join(', ')} and ${rules.at(-1)}`;

const expandHome = (value: string, env: Env): string => {
  if (value !== '~' && !value.startsWith('~/')) return value;
  const home = env.HOME?.trim() || homedir();
  return join(home, value.slice(1));
};

/** `SERVICE_ALERTS_ALLOWED_URLS`: comma-separated http(s) URL prefixes, parsed as every allow-list is (domain/base/outboundUrl.ts). */
const readAlertAllowedUrls = (r: Reader): readonly string[] => {
  const parsed = parseAllowedUrls(r.string('SERVICE_ALERTS_ALLOWED_URLS', ''));
  if ('urls' in parsed) return parsed.urls;
  r.problem('SERVICE_ALERTS_ALLOWED_URLS', parsed.problem);
  return [];
};

/** `SERVICE_PLAYGROUND_ALLOWED_BASE_URLS` (domain/base/outboundUrl.ts says what it allows). */
const readAllowedBaseUrls = (r: Reader): readonly string[] => {
  const parsed = parseAllowedUrls(r.string('SERVICE_PLAYGROUND_ALLOWED_BASE_URLS', ''));
  if ('urls' in parsed) return parsed.urls;
  r.problem('SERVICE_PLAYGROUND_ALLOWED_BASE_URLS', parsed.problem);
  return [];
};

/**
 * `<PROVIDER>_BASE_URL` (`OLLAMA_BASE_URL`, `OPENAI_BASE_URL`, as the SDKs name it): the base URL an
 * operator bound a provider (and so its key) to, canonical.
 */
const readEnvironmentBaseUrls = (r: Reader, env: Env): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {};
  for (const p of PLAYGROUND_PROVIDERS) {
    const name = `${p}_BASE_URL`;
    const raw = env[name]?.trim() ?? '';
    if (raw === '') continue;
    const url = canonicalBaseUrl(raw);
    if (url === null) r.problem(name, 'must be an http:// or https:// URL without a user name or password');
    else out[name] = url;
  }
  return out;
};

/** Relative paths resolve against the current directory; `~` against the home directory. */
const readWorkingDir = (r: Reader, env: Env): string => resolve(expandHome(r.string('SERVICE_WORKING_DIR', DEFAULTS.workingDir), env));

const ROOT_PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

/** '' | '/a/b': leading slash, no trailing slash, no empty, '.' or '..' segments. */
const readRootPath = (r: Reader): string => {
  const value = r.raw('SERVICE_HOST_ROOT_PATH');
  if (value === undefined) return '';
  const segments = value.split('/').filter((segment) => segment !== '');
  if (!ROOT_PATH_CHARS.test(value) || segments.some((segment) => segment === '.' || segment === '..')) {
    r.problem(
      'SERVICE_HOST_ROOT_PATH',
      `must be a URL path such as /loupe, without a query, fragment, spaces or . and .. segments (got ${quote(value)})`,
    );
    return '';
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
};

const readCsrfOrigins = (r: Reader): string[] => {
  const value = r.raw('SERVICE_CSRF_TRUSTED_ORIGINS');
  if (value === undefined) return [];
  const origins: string[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const url = parseUrl(entry);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      r.problem(
        'SERVICE_CSRF_TRUSTED_ORIGINS',
        `each entry must be an http:// or https:// URL with a host, such as https://example.com (got ${quote(entry)})`,
      );
      continue;
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
};

/** `username=email;...`; the last '=' separates, so a username may itself contain '='. */
export const parseAdmins = (value: string): { admins: AdminEntry[]; errors: string[] } => {
  const admins: AdminEntry[] = [];
  const errors: string[] = [];
  for (const pair of value.split(';').map((part) => part.trim())) {
    if (pair === '') continue;
    const at = pair.lastIndexOf('=');
    const username = at < 0 ? '' : pair.slice(0, at).trim();
    const email = at < 0 ? '' : normaliseEmail(pair.slice(at + 1));
    if (at < 0 || username === '') {
      errors.push(`entry ${quote(pair)} is not in the form username=email`);
      continue;
    }
    if (!isValidEmail(email)) {
      errors.push(`entry ${quote(pair)} has an invalid email ${quote(email)}`);
      continue;
    }
    if (admins.some((admin) => admin.username === username)) {
      errors.push(`username ${quote(username)} appears more than once`);
      continue;
    }
    if (admins.some((admin) => admin.email === email)) {
      errors.push(`email ${quote(email)} appears more than once`);
      continue;
    }
    admins.push({ username, email });
  }
  return { admins, errors };
};

const readAdmins = (r: Reader): AdminEntry[] => {
  const value = r.raw('SERVICE_ADMINS');
  if (value === undefined) return [];
  const { admins, errors } = parseAdmins(value);
  for (const error of errors) r.problem('SERVICE_ADMINS', error);
  return admins;
};

/** Any other way to log in, so that disabling passwords does not lock everyone out. */
const hasExternalLogin = (env: Env): boolean =>
  Object.entries(env).some(
    ([name, value]) =>
      value !== undefined && value.trim() !== '' && (name === 'SERVICE_LDAP_HOST' || /^SERVICE_OAUTH2_\w+_CLIENT_ID$/.test(name)),
  );

const readAuth = (r: Reader, env: Env): AuthConfig => {
  const enabled = r.boolean('SERVICE_ENABLE_AUTH', false);
  const secret = readSecret(r, 'SERVICE_SECRET');
  const adminSecret = readSecret(r, 'SERVICE_ADMIN_SECRET');

  if (enabled && !r.isSet('SERVICE_SECRET')) {
    r.problem('SERVICE_SECRET', 'must be set when SERVICE_ENABLE_AUTH is true');
  }
  if (r.isSet('SERVICE_ADMIN_SECRET') && !r.isSet('SERVICE_SECRET')) {
    r.problem('SERVICE_ADMIN_SECRET', 'must not be set when SERVICE_SECRET is unset');
  }
  if (secret !== null && adminSecret !== null && secret === adminSecret) {
    r.problem('SERVICE_ADMIN_SECRET', 'must differ from SERVICE_SECRET');
  }

  const disableBasicAuth = r.boolean('SERVICE_DISABLE_BASIC_AUTH', false);
  if (enabled && disableBasicAuth && !hasExternalLogin(env)) {
    r.problem(
      'SERVICE_DISABLE_BASIC_AUTH',
      'may only be true when an OAuth2 provider (SERVICE_OAUTH2_<IDP>_CLIENT_ID) or LDAP (SERVICE_LDAP_HOST) is configured',
    );
  }

  const minutes = (name: string, fallback: number) =>
    r.integer(name, fallback, 1, Number.MAX_SAFE_INTEGER, 'must be a whole number of minutes, at least 1');

  return {
    enabled,
    secret,
    adminSecret,
    useSecureCookies: r.boolean('SERVICE_USE_SECURE_COOKIES', false),
    csrfTrustedOrigins: readCsrfOrigins(r),
    defaultAdminInitialPassword: r.string('SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD', DEFAULTS.defaultAdminInitialPassword),
    strongPasswordPolicy: r.boolean('SERVICE_ENABLE_STRONG_PASSWORD_POLICY', false),
    bruteForce: {
      enabled: !r.boolean('SERVICE_DISABLE_BRUTE_FORCE_LOGIN_PROTECTION', false),
      maxAttempts: r.integer(
        'SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS',
        DEFAULTS.bruteForceMaxAttempts,
        1,
        Number.MAX_SAFE_INTEGER,
      ),
    },
    disableBasicAuth,
    tokenExpiryMinutes: {
      access: minutes('SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES', DEFAULTS.accessTokenExpiryMinutes),
      refresh: minutes('SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES', DEFAULTS.refreshTokenExpiryMinutes),
      passwordReset: minutes('SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES', DEFAULTS.passwordResetTokenExpiryMinutes),
    },
    admins: readAdmins(r),
    managementUrl: r.httpUrl('SERVICE_MANAGEMENT_URL'),
  };
};

/** `a@b` or `Name <a@b>`; a dotless domain such as localhost is fine for a sender. */
const readMailFrom = (r: Reader): string => {
  const value = r.string('SERVICE_SMTP_MAIL_FROM', DEFAULTS.smtpMailFrom);
  const address = /<([^<>]*)>\s*$/.exec(value)?.[1]?.trim() ?? value;
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(address)) {
    r.problem('SERVICE_SMTP_MAIL_FROM', `must be an email address, optionally as "Name <address>" (got ${quote(value)})`);
  }
  return value;
};

const readSmtp = (r: Reader): SmtpConfig | null => {
  const hostname = r.raw('SERVICE_SMTP_HOSTNAME');
  const tlsMode = r.oneOf('SERVICE_SMTP_TLS_MODE', SMTP_TLS_MODES, 'starttls');
  const port = r.integer('SERVICE_SMTP_PORT', DEFAULTS.smtpPort[tlsMode], 1, 65535, 'must be an integer from 1 to 65535');
  const validateCerts = r.boolean('SERVICE_SMTP_VALIDATE_CERTS', true);
  const mailFrom = readMailFrom(r);
  if (hostname === undefined) return null;
  for (const name of ['SERVICE_SMTP_USERNAME', 'SERVICE_SMTP_PASSWORD']) {
    if (!r.isSet(name)) r.problem(name, 'must be set when SERVICE_SMTP_HOSTNAME is set');
  }
  return {
    hostname,
    port,
    username: r.string('SERVICE_SMTP_USERNAME', ''),
    password: r.string('SERVICE_SMTP_PASSWORD', ''),
    mailFrom,
    tlsMode,
    validateCerts,
  };
};

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
};

/** Builds the whole configuration or throws a ConfigError listing every problem. */
export const loadConfig = (env: Env = process.env): Config => {
  const r = new Reader(env);

  const http: HttpConfig = {
    host: r.string('SERVICE_HOST', DEFAULTS.host),
    port: r.port('SERVICE_PORT', DEFAULTS.port),
    grpcPort: r.port('SERVICE_GRPC_PORT', DEFAULTS.grpcPort),
    otlpHttpPort: r.port('SERVICE_OTLP_HTTP_PORT', DEFAULTS.otlpHttpPort),
    rootPath: readRootPath(r),
    rootUrl: r.httpUrl('SERVICE_ROOT_URL'),
    trustProxy: r.boolean('SERVICE_TRUST_PROXY', false),
    maxRequestBytes: r.integer('SERVICE_MAX_REQUEST_BYTES', DEFAULTS.maxRequestBytes, 1024, 2 ** 31 - 1),
    otlpMaxInFlightBytes: r.integer(
      'SERVICE_OTLP_MAX_IN_FLIGHT_BYTES',
      DEFAULTS.otlpMaxInFlightBytes,
      1024 * 1024,
      Number.MAX_SAFE_INTEGER,
    ),
    otlpBodyTimeoutSeconds: r.integer('SERVICE_OTLP_BODY_TIMEOUT_SECONDS', DEFAULTS.otlpBodyTimeoutSeconds, 1, 3600),
    otlpMinBodyBytesPerSecond: r.integer(
      'SERVICE_OTLP_MIN_BODY_BYTES_PER_SECOND',
      DEFAULTS.otlpMinBodyBytesPerSecond,
      0,
      Number.MAX_SAFE_INTEGER,
    ),
    otlpMaxProjectionLagSeconds: r.integer('SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS', DEFAULTS.otlpMaxProjectionLagSeconds, 0, 86_400),
    checkResponses: r.boolean('SERVICE_CHECK_RESPONSES', false),
  };
  const ports: Array<[string, number]> = [
    ['SERVICE_PORT', http.port],
    ['SERVICE_GRPC_PORT', http.grpcPort],
    ['SERVICE_OTLP_HTTP_PORT', http.otlpHttpPort],
  ];
  ports.forEach(([name, port], i) => {
    const clash = ports.slice(0, i).find(([, other]) => port !== 0 && other === port);
    if (clash) r.problem(name, `must differ from ${clash[0]} (both are ${port})`);
  });

  const database: DatabaseConfig = {
    workingDir: readWorkingDir(r, env),
    sqlDatabaseUrl: r.secretUrl('SERVICE_SQL_DATABASE_URL', SQL_URL_SCHEMES, 'a postgres:// or postgresql:// URL'),
    eventStoreUrl: r.secretUrl(
      'SERVICE_EVENTSTORE_URL',
      EVENTSTORE_URL_SCHEMES,
      'an EventStoreDB/KurrentDB connection string (esdb://, esdb+discover://, kurrentdb://, kurrentdb+discover://, kdb://, kdb+discover://)',
    ),
    tracingPartitions:
      env.SERVICE_TRACING_PARTITIONS === undefined || env.SERVICE_TRACING_PARTITIONS.trim() === ''
        ? null
        : r.integer(
            'SERVICE_TRACING_PARTITIONS',
            1,
            1,
            MAX_TRACING_PARTITIONS,
            `must be a whole number from 1 to ${MAX_TRACING_PARTITIONS}`,
          ),
  };

  const auth = readAuth(r, env);
  // Its own variable, so that rotating SERVICE_SECRET does not leave the chain sealed with a key nobody has.
  const auditKey = readSecret(r, 'SERVICE_AUDIT_KEY');
  const config: Config = {
    http,
    database,
    log: { level: r.oneOf('SERVICE_LOG_LEVEL', LOG_LEVELS, DEFAULTS.logLevel) },
    projects: { defaultName: r.string('SERVICE_PROJECT_NAME', DEFAULTS.projectName) },
    retention: {
      defaultDays: r.integer('SERVICE_DEFAULT_RETENTION_POLICY_DAYS', 0, 0, 365_000, 'must be a whole number of days (0: keep for ever)'),
      scheduleMinutes: r.integer('SERVICE_RETENTION_SCHEDULE_MINUTES', 60, 1, 525_600, 'must be a whole number of minutes, at least 1'),
    },
    auth,
    smtp: readSmtp(r),
    oauth2: readOAuth2Providers(r, env),
    ldap: readLdap(r, { hasAdmins: auth.admins.length > 0 }),
    playground: {
      timeoutSeconds: r.integer('SERVICE_PLAYGROUND_TIMEOUT_SECONDS', DEFAULTS.playgroundTimeoutSeconds, 1, 3600),
      // The providers' own variable names, as their SDKs and Phoenix read them (not SERVICE_*): a
      // server already set up for an SDK needs nothing more. Stored secrets take precedence.
      environmentKeys: Object.fromEntries(
        PLAYGROUND_PROVIDERS.map((p) => [`${p}_API_KEY`, env[`${p}_API_KEY`]?.trim() ?? ''] as const).filter(([, v]) => v !== ''),
      ),
      environmentBaseUrls: readEnvironmentBaseUrls(r, env),
      allowedBaseUrls: readAllowedBaseUrls(r),
    },
    alerts: {
      evaluationIntervalSeconds: r.integer(
        'SERVICE_ALERTS_EVALUATION_INTERVAL_SECONDS',
        60,
        5,
        86_400,
        'must be a whole number of seconds, at least 5',
      ),
      allowedUrls: readAlertAllowedUrls(r),
    },
    audit:
      auditKey !== null
        ? { secret: auditKey, secretFrom: 'SERVICE_AUDIT_KEY' }
        : auth.secret !== null
          ? { secret: auth.secret, secretFrom: 'SERVICE_SECRET' }
          : { secret: null, secretFrom: null },
  };
  // External sign-in ends in our own session cookies: without auth there is nothing to sign in to.
  if (!auth.enabled) {
    for (const p of config.oauth2)
      r.problem(`SERVICE_OAUTH2_${p.name.toUpperCase()}_CLIENT_ID`, 'OAuth2 sign-in needs SERVICE_ENABLE_AUTH=true');
    if (config.ldap !== null) r.problem('SERVICE_LDAP_HOST', 'LDAP sign-in needs SERVICE_ENABLE_AUTH=true');
  }

  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return deepFreeze(config);
};

const REDACTED = '[redacted]';

const redactUrl = (value: string | null): string | null => {
  if (value === null) return null;
  const url = parseUrl(value);
  if (url === null || url.password === '') return value;
  url.password = REDACTED;
  return url.toString();
};

/** A copy safe to log: secrets, passwords and URL passwords replaced. */
export const redactConfig = (config: Config): Config =>
  deepFreeze({
    ...config,
    database: {
      ...config.database,
      sqlDatabaseUrl: redactUrl(config.database.sqlDatabaseUrl),
      eventStoreUrl: redactUrl(config.database.eventStoreUrl),
    },
    auth: {
      ...config.auth,
      secret: config.auth.secret === null ? null : REDACTED,
      adminSecret: config.auth.adminSecret === null ? null : REDACTED,
      defaultAdminInitialPassword: REDACTED,
    },
    smtp: config.smtp === null ? null : { ...config.smtp, password: REDACTED },
    audit: { ...config.audit, secret: config.audit.secret === null ? null : REDACTED },
    oauth2: config.oauth2.map((p) => ({ ...p, clientSecret: p.clientSecret === null ? null : REDACTED })),
    ldap: config.ldap === null ? null : { ...config.ldap, bindPassword: config.ldap.bindPassword === null ? null : REDACTED },
  });
