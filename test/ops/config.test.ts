import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, parseAdmins, redactConfig, type Env } from '../../ops/config.ts';
import { configProblems, hasProblem } from '../support/configProblems.ts';

const SECRET = 'a-very-long-secret-with-digit-0123456789';
const ADMIN_SECRET = 'another-long-admin-secret-9876543210abc';
const AUDIT_KEY = 'the-audit-chain-key-for-these-tests-42';

/** The problems a ConfigError reports, one formatted line each. */
const problemsOf = (env: Env): string[] => {
  const problems = configProblems(env);
  assert.ok(problems.length > 0, 'expected a ConfigError');
  return problems;
};

test('given no variables, then every default applies', () => {
  const config = loadConfig({ HOME: '/home/someone' });
  assert.equal(config.http, {
    host: '0.0.0.0',
    port: 6006,
    grpcPort: 4317,
    otlpHttpPort: 4318,
    rootPath: '',
    rootUrl: null,
    trustProxy: false,
    maxRequestBytes: 64 * 1024 * 1024,
    otlpMaxInFlightBytes: 256 * 1024 * 1024,
    otlpBodyTimeoutSeconds: 60,
    otlpMinBodyBytesPerSecond: 16 * 1024,
    otlpMaxProjectionLagSeconds: 4,
    checkResponses: false,
  });
  assert.equal(config.database, {
    workingDir: '/home/someone/.loupe',
    sqlDatabaseUrl: null,
    eventStoreUrl: null,
    tracingPartitions: null,
  });
  assert.is(config.log.level, 'info');
  assert.is(config.projects.defaultName, 'default');
  assert.equal(config.auth, {
    enabled: false,
    secret: null,
    adminSecret: null,
    useSecureCookies: false,
    csrfTrustedOrigins: [],
    defaultAdminInitialPassword: 'admin',
    strongPasswordPolicy: false,
    bruteForce: { enabled: true, maxAttempts: 5 },
    disableBasicAuth: false,
    tokenExpiryMinutes: { access: 10, refresh: 10080, passwordReset: 15 },
    admins: [],
    managementUrl: null,
  });
  assert.is(config.smtp, null);
});

test('the result is frozen all the way down', () => {
  const config = loadConfig({ SERVICE_CSRF_TRUSTED_ORIGINS: 'http://localhost' });
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.http));
  assert.ok(Object.isFrozen(config.auth.tokenExpiryMinutes));
  assert.ok(Object.isFrozen(config.auth.csrfTrustedOrigins));
  assert.throws(() => {
    (config.http as { port: number }).port = 1;
  });
});

test('given SERVICE_PORT=abc, then one problem names the variable and the rule', () => {
  const lines = problemsOf({ SERVICE_PORT: 'abc' });
  assert.equal(lines, ['SERVICE_PORT: must be an integer from 1 to 65535 (or 0 for any free port) (got "abc")']);
});

test('SERVICE_TRACING_PARTITIONS: a count of partitions is taken; zero, fractions and words are problems', () => {
  assert.is(loadConfig({ HOME: '/h', SERVICE_TRACING_PARTITIONS: '4' }).database.tracingPartitions, 4);
  for (const bad of ['0', '1.5', 'many']) {
    hasProblem(problemsOf({ SERVICE_TRACING_PARTITIONS: bad }), 'SERVICE_TRACING_PARTITIONS: must be a whole number from 1 to 64');
  }
});

test('ports: out of range, fractional and clashing values are problems; 0 means any free port', () => {
  hasProblem(problemsOf({ SERVICE_PORT: '65536' }), 'SERVICE_PORT: must be an integer');
  hasProblem(problemsOf({ SERVICE_GRPC_PORT: '-1' }), 'SERVICE_GRPC_PORT: must be an integer');
  hasProblem(problemsOf({ SERVICE_OTLP_HTTP_PORT: '4318.5' }), 'SERVICE_OTLP_HTTP_PORT: must be an integer');
  assert.equal(problemsOf({ SERVICE_PORT: '4317' }), ['SERVICE_GRPC_PORT: must differ from SERVICE_PORT (both are 4317)']);
  const config = loadConfig({ SERVICE_PORT: '0', SERVICE_GRPC_PORT: '0', SERVICE_OTLP_HTTP_PORT: ' 0 ' });
  assert.equal([config.http.port, config.http.grpcPort, config.http.otlpHttpPort], [0, 0, 0]);
});

test('values are trimmed and an empty value counts as unset', () => {
  const config = loadConfig({ SERVICE_PORT: ' 8080 ', SERVICE_HOST: '', SERVICE_PROJECT_NAME: '  ' });
  assert.is(config.http.port, 8080);
  assert.is(config.http.host, '0.0.0.0');
  assert.is(config.projects.defaultName, 'default');
});

test('every problem is collected, not only the first', () => {
  const lines = problemsOf({
    SERVICE_PORT: 'abc',
    SERVICE_LOG_LEVEL: 'loud',
    SERVICE_ENABLE_AUTH: 'maybe',
    SERVICE_SQL_DATABASE_URL: 'mysql://root:hunter2@db/x',
    SERVICE_ADMINS: 'nobody',
  });
  assert.is(lines.length, 5);
  hasProblem(lines, 'SERVICE_PORT:');
  hasProblem(lines, 'SERVICE_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")');
  hasProblem(lines, 'SERVICE_ENABLE_AUTH: must be true or false');
  hasProblem(lines, 'SERVICE_SQL_DATABASE_URL: must be a postgres:// or postgresql:// URL (value not shown)');
  hasProblem(lines, 'SERVICE_ADMINS:');
  assert.not.ok(lines.join('\n').includes('hunter2'));
});

test('booleans accept true/false/1/0/yes/no in any case; anything else is a problem', () => {
  for (const [value, expected] of [
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['Yes', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['NO', false],
  ] as const) {
    assert.is(loadConfig({ SERVICE_USE_SECURE_COOKIES: value }).auth.useSecureCookies, expected, value);
  }
  hasProblem(problemsOf({ SERVICE_USE_SECURE_COOKIES: 'on' }), 'SERVICE_USE_SECURE_COOKIES: must be true or false');
  assert.is(loadConfig({ SERVICE_DISABLE_BRUTE_FORCE_LOGIN_PROTECTION: 'yes' }).auth.bruteForce.enabled, false);
});

test('SERVICE_HOST_ROOT_PATH is normalised to a leading slash and no trailing slash', () => {
  const rootPath = (value: string) => loadConfig({ SERVICE_HOST_ROOT_PATH: value }).http.rootPath;
  assert.is(rootPath('loupe'), '/loupe');
  assert.is(rootPath('/loupe/'), '/loupe');
  assert.is(rootPath('//a//b/'), '/a/b');
  assert.is(rootPath('/'), '');
  hasProblem(problemsOf({ SERVICE_HOST_ROOT_PATH: '/a?b' }), 'SERVICE_HOST_ROOT_PATH: must be a URL path');
  hasProblem(problemsOf({ SERVICE_HOST_ROOT_PATH: '/a/../b' }), 'SERVICE_HOST_ROOT_PATH: must be a URL path');
});

test('URLs: root and management URLs must be http(s); trailing slash dropped', () => {
  const config = loadConfig({
    SERVICE_ROOT_URL: 'https://example.com/loupe/',
    SERVICE_MANAGEMENT_URL: 'http://manage.example.com',
  });
  assert.is(config.http.rootUrl, 'https://example.com/loupe');
  assert.is(config.auth.managementUrl, 'http://manage.example.com');
  hasProblem(problemsOf({ SERVICE_ROOT_URL: 'example.com' }), 'SERVICE_ROOT_URL: must be an absolute http:// or https:// URL');
  hasProblem(problemsOf({ SERVICE_MANAGEMENT_URL: 'ftp://x.org' }), 'SERVICE_MANAGEMENT_URL: must be an absolute');
  const withCredentials = problemsOf({ SERVICE_ROOT_URL: 'htp://me:pa55word@example.com' });
  assert.equal(withCredentials, ['SERVICE_ROOT_URL: must be an absolute http:// or https:// URL with a host (value not shown)']);
  assert.equal(problemsOf({ SERVICE_ROOT_URL: 'https://me:pa55word@example.com' }), [
    'SERVICE_ROOT_URL: must not contain a user name or password',
  ]);
});

test('database URLs: postgres and EventStoreDB schemes are accepted, the value is never echoed', () => {
  const config = loadConfig({
    SERVICE_SQL_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
    SERVICE_EVENTSTORE_URL: 'esdb://admin:changeit@localhost:2113?tls=false',
  });
  assert.is(config.database.sqlDatabaseUrl, 'postgres://postgres@127.0.0.1:5432/postgres');
  assert.is(config.database.eventStoreUrl, 'esdb://admin:changeit@localhost:2113?tls=false');
  assert.ok(loadConfig({ SERVICE_SQL_DATABASE_URL: 'postgresql://u:p@h/db' }).database.sqlDatabaseUrl);
  const lines = problemsOf({ SERVICE_EVENTSTORE_URL: 'http://admin:changeit@localhost:2113' });
  hasProblem(lines, 'SERVICE_EVENTSTORE_URL: must be an EventStoreDB/KurrentDB connection string (esdb://');
  assert.not.ok(lines.join('\n').includes('changeit'));
});

test('SERVICE_WORKING_DIR expands ~ and resolves relative paths', () => {
  assert.is(loadConfig({ HOME: '/h', SERVICE_WORKING_DIR: '~/data' }).database.workingDir, '/h/data');
  assert.is(loadConfig({ SERVICE_WORKING_DIR: '/var/lib/loupe/' }).database.workingDir, '/var/lib/loupe');
  assert.is(loadConfig({ SERVICE_WORKING_DIR: 'rel' }).database.workingDir, `${process.cwd()}/rel`);
});

test('SERVICE_LOG_LEVEL accepts pino levels in any case', () => {
  assert.is(loadConfig({ SERVICE_LOG_LEVEL: 'DEBUG' }).log.level, 'debug');
  assert.is(loadConfig({ SERVICE_LOG_LEVEL: 'silent' }).log.level, 'silent');
});

test('SERVICE_MAX_REQUEST_BYTES must be a sensible integer', () => {
  assert.is(loadConfig({ SERVICE_MAX_REQUEST_BYTES: '1048576' }).http.maxRequestBytes, 1048576);
  hasProblem(problemsOf({ SERVICE_MAX_REQUEST_BYTES: '10MB' }), 'SERVICE_MAX_REQUEST_BYTES: must be an integer from 1024');
});

test('auth enabled without SERVICE_SECRET is a problem', () => {
  assert.equal(problemsOf({ SERVICE_ENABLE_AUTH: 'true' }), ['SERVICE_SECRET: must be set when SERVICE_ENABLE_AUTH is true']);
  const config = loadConfig({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET });
  assert.is(config.auth.enabled, true);
  assert.is(config.auth.secret, SECRET);
});

test('a weak secret lists each broken rule and never shows the value', () => {
  const lines = problemsOf({ SERVICE_SECRET: 'SHORTSECRET' });
  assert.equal(lines, [
    'SERVICE_SECRET: must be at least 32 characters long, contain at least one digit and contain at least one lowercase letter (value not shown)',
  ]);
  const noDigit = problemsOf({ SERVICE_SECRET: 'abcdefghijklmnopqrstuvwxyzabcdefghij' });
  assert.equal(noDigit, ['SERVICE_SECRET: must contain at least one digit (value not shown)']);
  const spaced = problemsOf({ SERVICE_SECRET: 'abcdefghijklmnop 1234567890abcdefghij' });
  assert.equal(spaced, ['SERVICE_SECRET: must contain no whitespace (value not shown)']);
  for (const line of [...lines, ...noDigit, ...spaced]) {
    assert.not.ok(/SHORTSECRET|abcdefghij/.test(line), line);
  }
});

test('SERVICE_ADMIN_SECRET: same rules, needs SERVICE_SECRET, must differ from it', () => {
  const ok = loadConfig({ SERVICE_SECRET: SECRET, SERVICE_ADMIN_SECRET: ADMIN_SECRET });
  assert.is(ok.auth.adminSecret, ADMIN_SECRET);
  assert.equal(problemsOf({ SERVICE_ADMIN_SECRET: ADMIN_SECRET }), ['SERVICE_ADMIN_SECRET: must not be set when SERVICE_SECRET is unset']);
  assert.equal(problemsOf({ SERVICE_SECRET: SECRET, SERVICE_ADMIN_SECRET: SECRET }), [
    'SERVICE_ADMIN_SECRET: must differ from SERVICE_SECRET',
  ]);
  const weak = problemsOf({ SERVICE_SECRET: SECRET, SERVICE_ADMIN_SECRET: 'short1' });
  assert.equal(weak, ['SERVICE_ADMIN_SECRET: must be at least 32 characters long (value not shown)']);
});

test('SERVICE_CSRF_TRUSTED_ORIGINS: comma list of URLs, empty entries skipped', () => {
  const config = loadConfig({ SERVICE_CSRF_TRUSTED_ORIGINS: ',http://localhost, https://Example.com:8443/x,' });
  assert.equal(config.auth.csrfTrustedOrigins, ['http://localhost', 'https://example.com:8443']);
  const lines = problemsOf({ SERVICE_CSRF_TRUSTED_ORIGINS: 'http://ok.org,localhost,also bad' });
  assert.is(lines.length, 2);
  hasProblem(lines, 'SERVICE_CSRF_TRUSTED_ORIGINS: each entry must be an http:// or https:// URL with a host');
});

test('token expiries and brute-force attempts are positive whole numbers', () => {
  const config = loadConfig({
    SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES: '5',
    SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES: '60',
    SERVICE_PASSWORD_RESET_TOKEN_EXPIRY_MINUTES: '30',
    SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '3',
  });
  assert.equal(config.auth.tokenExpiryMinutes, { access: 5, refresh: 60, passwordReset: 30 });
  assert.is(config.auth.bruteForce.maxAttempts, 3);
  const lines = problemsOf({
    SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES: '0',
    SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES: 'soon',
    SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '0',
  });
  assert.is(lines.length, 3);
  hasProblem(lines, 'SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES: must be a whole number of minutes, at least 1 (got "0")');
  hasProblem(lines, 'SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES: must be a whole number of minutes');
  hasProblem(lines, 'SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: must be an integer of at least 1');
});

test('SERVICE_DISABLE_BASIC_AUTH with auth on needs OAuth2 or LDAP', () => {
  const base = { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET, SERVICE_DISABLE_BASIC_AUTH: 'true' };
  hasProblem(problemsOf(base), 'SERVICE_DISABLE_BASIC_AUTH: may only be true when');
  const google = {
    SERVICE_OAUTH2_GOOGLE_CLIENT_ID: 'x',
    SERVICE_OAUTH2_GOOGLE_CLIENT_SECRET: 'y',
    SERVICE_OAUTH2_GOOGLE_OIDC_CONFIG_URL: 'https://accounts.google.com/.well-known/openid-configuration',
  };
  assert.ok(loadConfig({ ...base, ...google }).auth.disableBasicAuth);
  const ldap = {
    SERVICE_LDAP_HOST: 'ldap.example.org',
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: '["ou=people,dc=example,dc=org"]',
    SERVICE_LDAP_ATTR_EMAIL: 'mail',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "VIEWER"}]',
  };
  assert.ok(loadConfig({ ...base, ...ldap }).auth.disableBasicAuth);
  assert.ok(loadConfig({ SERVICE_DISABLE_BASIC_AUTH: 'true' }).auth.disableBasicAuth);
});

test('SERVICE_ADMINS parses username=email pairs; the last = separates', () => {
  const config = loadConfig({ SERVICE_ADMINS: ' Jane Doe = Jane@Example.COM ; ; a=b=c@d.org;' });
  assert.equal(config.auth.admins, [
    { username: 'Jane Doe', email: 'jane@example.com' },
    { username: 'a=b', email: 'c@d.org' },
  ]);
});

test('SERVICE_ADMINS: unparsable entries, invalid emails and duplicates are problems', () => {
  assert.equal(parseAdmins('John; Adams=x@y.com').errors, ['entry "John" is not in the form username=email']);
  assert.equal(parseAdmins('=x@y.com').errors, ['entry "=x@y.com" is not in the form username=email']);
  assert.equal(parseAdmins('bob=not-an-email').errors, ['entry "bob=not-an-email" has an invalid email "not-an-email"']);
  assert.equal(parseAdmins('a=x@y.com;a=z@y.com;b=X@y.com').errors, [
    'username "a" appears more than once',
    'email "x@y.com" appears more than once',
  ]);
  const lines = problemsOf({ SERVICE_ADMINS: 'x;bob=nope' });
  assert.is(lines.length, 2);
  hasProblem(lines, 'SERVICE_ADMINS: entry "x" is not in the form username=email');
});

test('SMTP: off without a hostname; with one, username and password are required', () => {
  assert.is(loadConfig({ SERVICE_SMTP_USERNAME: 'u' }).smtp, null);
  assert.equal(problemsOf({ SERVICE_SMTP_HOSTNAME: 'mail.example.org' }), [
    'SERVICE_SMTP_USERNAME: must be set when SERVICE_SMTP_HOSTNAME is set',
    'SERVICE_SMTP_PASSWORD: must be set when SERVICE_SMTP_HOSTNAME is set',
  ]);
  const config = loadConfig({
    SERVICE_SMTP_HOSTNAME: 'mail.example.org',
    SERVICE_SMTP_USERNAME: 'user',
    SERVICE_SMTP_PASSWORD: 'pw',
  });
  assert.equal(config.smtp, {
    hostname: 'mail.example.org',
    port: 587,
    username: 'user',
    password: 'pw',
    mailFrom: 'noreply@localhost',
    tlsMode: 'starttls',
    validateCerts: true,
  });
});

test('SMTP: TLS mode picks the default port; settings are validated', () => {
  const base = { SERVICE_SMTP_HOSTNAME: 'h', SERVICE_SMTP_USERNAME: 'u', SERVICE_SMTP_PASSWORD: 'p' };
  assert.is(loadConfig({ ...base, SERVICE_SMTP_TLS_MODE: 'TLS' }).smtp?.port, 465);
  const plain = loadConfig({
    ...base,
    SERVICE_SMTP_TLS_MODE: 'none',
    SERVICE_SMTP_PORT: '2525',
    SERVICE_SMTP_VALIDATE_CERTS: 'false',
    SERVICE_SMTP_MAIL_FROM: 'Loupe <loupe@example.org>',
  }).smtp;
  assert.equal([plain?.tlsMode, plain?.port, plain?.validateCerts, plain?.mailFrom], ['none', 2525, false, 'Loupe <loupe@example.org>']);
  const lines = problemsOf({
    ...base,
    SERVICE_SMTP_TLS_MODE: 'ssl',
    SERVICE_SMTP_PORT: 'x',
    SERVICE_SMTP_MAIL_FROM: 'nobody',
  });
  assert.is(lines.length, 3);
  hasProblem(lines, 'SERVICE_SMTP_TLS_MODE: must be one of starttls, tls, none (got "ssl")');
  hasProblem(lines, 'SERVICE_SMTP_PORT: must be an integer from 1 to 65535 (got "x")');
  hasProblem(lines, 'SERVICE_SMTP_MAIL_FROM: must be an email address');
});

test('SERVICE_AUDIT_KEY keys the audit chain, else SERVICE_SECRET does, else it is unkeyed; same rules as SERVICE_SECRET', () => {
  const own = loadConfig({ SERVICE_SECRET: SECRET, SERVICE_AUDIT_KEY: ADMIN_SECRET }).audit;
  assert.equal([own.secret, own.secretFrom], [ADMIN_SECRET, 'SERVICE_AUDIT_KEY']);
  const shared = loadConfig({ SERVICE_SECRET: SECRET }).audit;
  assert.equal([shared.secret, shared.secretFrom], [SECRET, 'SERVICE_SECRET']);
  assert.equal(loadConfig({}).audit, { secret: null, secretFrom: null });
  assert.equal(problemsOf({ SERVICE_AUDIT_KEY: 'short1' }), ['SERVICE_AUDIT_KEY: must be at least 32 characters long (value not shown)']);
});

test('redactConfig hides secrets, passwords and URL passwords', () => {
  const config = loadConfig({
    SERVICE_SECRET: SECRET,
    SERVICE_ADMIN_SECRET: ADMIN_SECRET,
    SERVICE_AUDIT_KEY: AUDIT_KEY,
    SERVICE_SQL_DATABASE_URL: 'postgres://app:hunter2@db:5432/loupe',
    SERVICE_SMTP_HOSTNAME: 'h',
    SERVICE_SMTP_USERNAME: 'u',
    SERVICE_SMTP_PASSWORD: 'mail-password',
    SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 'first-password',
  });
  const text = JSON.stringify(redactConfig(config));
  for (const secret of [SECRET, ADMIN_SECRET, AUDIT_KEY, 'hunter2', 'mail-password', 'first-password']) {
    assert.not.ok(text.includes(secret), secret);
  }
  assert.ok(text.includes('postgres://app:'));
  assert.is(config.auth.secret, SECRET, 'the original is untouched');
});

test('loadConfig reads process.env by default', () => {
  assert.type(loadConfig().http.port, 'number');
});

test.run();
