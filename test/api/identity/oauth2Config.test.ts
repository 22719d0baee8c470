import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, redactConfig } from '../../../ops/config.ts';
import { configProblems, hasProblem } from '../../support/configProblems.ts';

/** Startup validation of `SERVICE_OAUTH2_<IDP>_*`: one line per problem, naming the variable. */

const SECRET = 'a-long-enough-secret-1234567890abcdef';
const base = (extra: Record<string, string>) => ({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET, ...extra });
const okay = {
  SERVICE_OAUTH2_ACME_CLIENT_ID: 'acme',
  SERVICE_OAUTH2_ACME_CLIENT_SECRET: 'acme-secret',
  SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: 'https://sso.acme.example/.well-known/openid-configuration',
};

const problemsOf = (env: Record<string, string>): string[] => configProblems(base(env));

test('a provider with its defaults', () => {
  const [acme] = loadConfig(base(okay)).oauth2;
  assert.equal(acme, {
    name: 'acme',
    displayName: 'Acme',
    clientId: 'acme',
    clientSecret: 'acme-secret',
    tokenEndpointAuthMethod: 'client_secret_basic',
    oidcConfigUrl: 'https://sso.acme.example/.well-known/openid-configuration',
    allowSignUp: true,
    autoLogin: false,
    usePkce: false,
    scopes: 'openid email profile',
    emailAttributePath: 'email',
    groupsAttributePath: null,
    allowedGroups: [],
    roleAttributePath: null,
    roleMapping: [],
    roleAttributeStrict: false,
  });
  assert.is(redactConfig(loadConfig(base(okay))).oauth2[0]!.clientSecret, '[redacted]');
});

test('several providers, sorted; names lower-cased; display names generated; scopes added and deduplicated', () => {
  const config = loadConfig(
    base({
      ...okay,
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_CLIENT_ID: 'm',
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_TOKEN_ENDPOINT_AUTH_METHOD: 'NONE',
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_USE_PKCE: 'true',
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_OIDC_CONFIG_URL: 'http://localhost:9000/.well-known/openid-configuration',
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_SCOPES: 'groups  offline_access email',
      SERVICE_OAUTH2_MICROSOFT_ENTRA_ID_AUTO_LOGIN: 'true',
    }),
  );
  assert.equal(
    config.oauth2.map((p) => [p.name, p.displayName, p.clientSecret, p.tokenEndpointAuthMethod, p.usePkce, p.scopes, p.autoLogin]),
    [
      ['acme', 'Acme', 'acme-secret', 'client_secret_basic', false, 'openid email profile', false],
      ['microsoft_entra_id', 'Microsoft Entra ID', null, 'none', true, 'openid email profile groups offline_access', true],
    ],
  );
});

test('required variables and the secret rule', () => {
  const problems = problemsOf({ SERVICE_OAUTH2_ACME_DISPLAY_NAME: 'Acme' });
  hasProblem(problems, 'SERVICE_OAUTH2_ACME_CLIENT_ID: must be set');
  hasProblem(problems, 'SERVICE_OAUTH2_ACME_CLIENT_SECRET: must be set unless');
  hasProblem(problems, 'SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: must be set');
  for (const method of ['client_secret_basic', 'client_secret_post']) {
    hasProblem(
      problemsOf({ ...okay, SERVICE_OAUTH2_ACME_CLIENT_SECRET: '', SERVICE_OAUTH2_ACME_TOKEN_ENDPOINT_AUTH_METHOD: method }),
      'SERVICE_OAUTH2_ACME_CLIENT_SECRET',
    );
  }
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' }),
    'SERVICE_OAUTH2_ACME_TOKEN_ENDPOINT_AUTH_METHOD: must be one of',
  );
});

test('the discovery URL must be https except for localhost', () => {
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: 'http://sso.acme.example/.well-known/openid-configuration' }),
    'SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: must use https://',
  );
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: 'sso.acme.example' }),
    'SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: must be an absolute',
  );
  for (const host of ['localhost:8080', '127.0.0.1', '[::1]:9']) {
    assert.equal(problemsOf({ ...okay, SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: `http://${host}/.well-known/openid-configuration` }), []);
  }
});

test('groups path and allowed groups go together', () => {
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_GROUPS_ATTRIBUTE_PATH: 'groups' }),
    'SERVICE_OAUTH2_ACME_ALLOWED_GROUPS: must be set together',
  );
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ALLOWED_GROUPS: 'a,b' }),
    'SERVICE_OAUTH2_ACME_GROUPS_ATTRIBUTE_PATH: must be set together',
  );
  const [acme] = loadConfig(
    base({ ...okay, SERVICE_OAUTH2_ACME_GROUPS_ATTRIBUTE_PATH: 'groups', SERVICE_OAUTH2_ACME_ALLOWED_GROUPS: ' a, b ,a,' }),
  ).oauth2;
  assert.equal(acme!.allowedGroups, ['a', 'b']);
});

test('role mapping: SYSTEM refused, pairs checked, needs a role path; strict needs a role path', () => {
  const withPath = { ...okay, SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH: 'role' };
  hasProblem(
    problemsOf({ ...withPath, SERVICE_OAUTH2_ACME_ROLE_MAPPING: 'Boss:SYSTEM' }),
    'SERVICE_OAUTH2_ACME_ROLE_MAPPING: entry "Boss:SYSTEM" maps to SYSTEM',
  );
  hasProblem(
    problemsOf({ ...withPath, SERVICE_OAUTH2_ACME_ROLE_MAPPING: 'Boss' }),
    'SERVICE_OAUTH2_ACME_ROLE_MAPPING: entry "Boss" must be IdpRole:Role',
  );
  hasProblem(
    problemsOf({ ...withPath, SERVICE_OAUTH2_ACME_ROLE_MAPPING: 'Boss:OWNER' }),
    'SERVICE_OAUTH2_ACME_ROLE_MAPPING: entry "Boss:OWNER" must map to',
  );
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ROLE_MAPPING: 'Boss:ADMIN' }),
    'SERVICE_OAUTH2_ACME_ROLE_MAPPING: needs SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH',
  );
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_STRICT: 'true' }),
    'SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_STRICT: needs',
  );
  const [acme] = loadConfig(base({ ...withPath, SERVICE_OAUTH2_ACME_ROLE_MAPPING: 'Boss:admin, urn:x:dev:Member' })).oauth2;
  assert.equal(acme!.roleMapping, [
    ['Boss', 'ADMIN'],
    ['urn:x:dev', 'MEMBER'],
  ]);
});

test('attribute paths must compile as JMESPath; quoted keys are fine', () => {
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_EMAIL_ATTRIBUTE_PATH: 'a[' }),
    'SERVICE_OAUTH2_ACME_EMAIL_ATTRIBUTE_PATH: is not a valid JMESPath',
  );
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH: 'https://x/roles' }),
    'SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH: is not a valid JMESPath',
  );
  assert.equal(problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH: '"https://x/roles"[0]' }), []);
});

test('at most one auto-login provider; reserved names', () => {
  const second = {
    SERVICE_OAUTH2_BETA_CLIENT_ID: 'b',
    SERVICE_OAUTH2_BETA_CLIENT_SECRET: 'b',
    SERVICE_OAUTH2_BETA_OIDC_CONFIG_URL: 'https://b.example/.well-known/openid-configuration',
  };
  hasProblem(
    problemsOf({ ...okay, ...second, SERVICE_OAUTH2_ACME_AUTO_LOGIN: 'true', SERVICE_OAUTH2_BETA_AUTO_LOGIN: 'true' }),
    'SERVICE_OAUTH2_BETA_AUTO_LOGIN: only one provider may auto-login',
  );
  hasProblem(
    problemsOf({
      SERVICE_OAUTH2_TOKEN_CLIENT_ID: 't',
      SERVICE_OAUTH2_TOKEN_CLIENT_SECRET: 't',
      SERVICE_OAUTH2_TOKEN_OIDC_CONFIG_URL: 'https://t.example/.well-known/openid-configuration',
    }),
    'SERVICE_OAUTH2_TOKEN_CLIENT_ID: provider name "token" is reserved',
  );
});

test('OAuth2 and LDAP need auth on', () => {
  const problems = (() => {
    try {
      loadConfig({
        ...okay,
        SERVICE_LDAP_HOST: 'ldap.example.com',
        SERVICE_LDAP_USER_SEARCH_BASE_DNS: '[""]',
        SERVICE_LDAP_ATTR_EMAIL: 'mail',
        SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "VIEWER"}]',
      });
      return [];
    } catch (error) {
      return (error as Error).message.split('\n');
    }
  })();
  hasProblem(problems, 'SERVICE_OAUTH2_ACME_CLIENT_ID: OAuth2 sign-in needs SERVICE_ENABLE_AUTH=true');
  hasProblem(problems, 'SERVICE_LDAP_HOST: LDAP sign-in needs SERVICE_ENABLE_AUTH=true');
});

test('booleans are checked', () => {
  hasProblem(
    problemsOf({ ...okay, SERVICE_OAUTH2_ACME_ALLOW_SIGN_UP: 'maybe' }),
    'SERVICE_OAUTH2_ACME_ALLOW_SIGN_UP: must be true or false',
  );
  assert.is(loadConfig(base({ ...okay, SERVICE_OAUTH2_ACME_ALLOW_SIGN_UP: 'false' })).oauth2[0]!.allowSignUp, false);
});

test.run();
