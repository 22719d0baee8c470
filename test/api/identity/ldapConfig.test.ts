import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalDn } from '../../../api/identity/ldap/canonicalDn.ts';
import { escapeFilterValue, roleFor } from '../../../api/identity/ldap/ldapDirectory.ts';
import { loadConfig, redactConfig } from '../../../ops/config.ts';
import { configProblems, hasProblem } from '../../support/configProblems.ts';

/** Startup validation of `SERVICE_LDAP_*`: one line per problem, naming the variable. */

const SECRET = 'a-long-enough-secret-1234567890abcdef';
const required = {
  SERVICE_LDAP_HOST: 'ldap1.example.com, ldap2.example.com,',
  SERVICE_LDAP_USER_SEARCH_BASE_DNS: '["ou=people,dc=example,dc=com"]',
  SERVICE_LDAP_GROUP_ROLE_MAPPINGS:
    '[{"group_dn": "cn=admins,ou=groups,dc=example,dc=com", "role": "admin"}, {"group_dn": "*", "role": "VIEWER"}]',
  SERVICE_LDAP_ATTR_EMAIL: 'mail',
};
const load = (env: Record<string, string>) => loadConfig({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET, ...env });

const problemsOf = (env: Record<string, string>): string[] =>
  configProblems({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: SECRET, ...env });

test('unset host: no LDAP; the required set with its defaults', () => {
  assert.is(load({}).ldap, null);
  assert.equal(load(required).ldap, {
    hosts: ['ldap1.example.com', 'ldap2.example.com'],
    port: 389,
    tlsMode: 'starttls',
    tlsVerify: true,
    tlsCaCertFile: null,
    tlsClientCertFile: null,
    tlsClientKeyFile: null,
    bindDn: null,
    bindPassword: null,
    userSearchBaseDns: ['ou=people,dc=example,dc=com'],
    userSearchFilter: '(&(objectClass=user)(sAMAccountName=%s))',
    attrEmail: 'mail',
    attrDisplayName: 'displayName',
    attrMemberOf: 'memberOf',
    attrUniqueId: null,
    groupSearchBaseDns: [],
    groupSearchFilter: null,
    groupSearchFilterUserAttr: null,
    groupRoleMappings: [
      { groupDn: 'cn=admins,ou=groups,dc=example,dc=com', role: 'ADMIN' },
      { groupDn: '*', role: 'VIEWER' },
    ],
    allowSignUp: true,
  });
  assert.is(load({ ...required, SERVICE_LDAP_TLS_MODE: 'LDAPS' }).ldap!.port, 636);
});

test('required variables', () => {
  const problems = problemsOf({ SERVICE_LDAP_HOST: 'ldap.example.com' });
  hasProblem(problems, 'SERVICE_LDAP_USER_SEARCH_BASE_DNS: must be set');
  hasProblem(problems, 'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: must be set');
  hasProblem(problems, 'SERVICE_LDAP_ATTR_EMAIL: must be set');
});

test('empty group role mappings refuse the start; entries are checked', () => {
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[]' }),
    'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: must be a JSON array of at least one',
  );
  hasProblem(problemsOf({ ...required, SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '{' }), 'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: must be valid JSON');
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "SYSTEM"}]' }),
    'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: entry 1: role',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "admins", "role": "ADMIN"}]' }),
    'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: entry 1: group_dn',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '["x"]' }),
    'SERVICE_LDAP_GROUP_ROLE_MAPPINGS: entry 1 must be an object',
  );
});

test('pairs that go together, TLS mode, port, files that must exist, filters with %s, attribute names', () => {
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_BIND_DN: 'cn=svc,dc=example,dc=com' }),
    'SERVICE_LDAP_BIND_PASSWORD: must be set together',
  );
  hasProblem(problemsOf({ ...required, SERVICE_LDAP_BIND_PASSWORD: 'x' }), 'SERVICE_LDAP_BIND_DN: must be set together');
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_TLS_CLIENT_CERT_FILE: '/etc/hostname' }),
    'SERVICE_LDAP_TLS_CLIENT_KEY_FILE: must be set together',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_TLS_CA_CERT_FILE: '/nonexistent/ca.pem' }),
    'SERVICE_LDAP_TLS_CA_CERT_FILE: file "/nonexistent/ca.pem" does not exist',
  );
  hasProblem(problemsOf({ ...required, SERVICE_LDAP_TLS_MODE: 'ssl' }), 'SERVICE_LDAP_TLS_MODE: must be one of starttls, ldaps, none');
  hasProblem(problemsOf({ ...required, SERVICE_LDAP_PORT: '70000' }), 'SERVICE_LDAP_PORT: must be an integer');
  hasProblem(problemsOf({ ...required, SERVICE_LDAP_TLS_VERIFY: 'perhaps' }), 'SERVICE_LDAP_TLS_VERIFY: must be true or false');
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_USER_SEARCH_FILTER: '(uid=alice)' }),
    'SERVICE_LDAP_USER_SEARCH_FILTER: must contain %s',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_SEARCH_FILTER: '(member=%s)' }),
    'SERVICE_LDAP_GROUP_SEARCH_BASE_DNS: must be set',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: 'uid' }),
    'SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: is only used with',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_ATTR_DISPLAY_NAME: 'display Name' }),
    'SERVICE_LDAP_ATTR_DISPLAY_NAME: must be an attribute name without spaces',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_USER_SEARCH_BASE_DNS: '"ou=people"' }),
    'SERVICE_LDAP_USER_SEARCH_BASE_DNS: must be a JSON array',
  );
  hasProblem(
    problemsOf({ ...required, SERVICE_LDAP_USER_SEARCH_BASE_DNS: '["people"]' }),
    'SERVICE_LDAP_USER_SEARCH_BASE_DNS: "people" is not a valid DN',
  );
});

test('no-email mode needs a unique id and sign-up, and cannot be used with SERVICE_ADMINS', () => {
  const noEmail = { ...required, SERVICE_LDAP_ATTR_EMAIL: 'NULL' };
  hasProblem(problemsOf(noEmail), 'SERVICE_LDAP_ATTR_UNIQUE_ID: must be set when SERVICE_LDAP_ATTR_EMAIL is null');
  const withId = { ...noEmail, SERVICE_LDAP_ATTR_UNIQUE_ID: 'entryUUID' };
  assert.is(load(withId).ldap!.attrEmail, null);
  hasProblem(problemsOf({ ...withId, SERVICE_LDAP_ALLOW_SIGN_UP: 'false' }), 'SERVICE_LDAP_ALLOW_SIGN_UP: must be true');
  hasProblem(problemsOf({ ...withId, SERVICE_ADMINS: 'ann=ann@example.com' }), 'SERVICE_ADMINS: cannot be used');
});

test('the bind password is redacted', () => {
  const config = load({ ...required, SERVICE_LDAP_BIND_DN: 'cn=svc,dc=example,dc=com', SERVICE_LDAP_BIND_PASSWORD: 'svc-password' });
  assert.is(redactConfig(config).ldap!.bindPassword, '[redacted]');
  assert.not.ok(JSON.stringify(redactConfig(config)).includes('svc-password'));
});

test('RFC 4515 escaping; canonical DNs; first mapping wins', () => {
  assert.is(escapeFilterValue('a*b(c)d\\e\u0000'), 'a\\2ab\\28c\\29d\\5ce\\00');
  assert.is(canonicalDn(' CN=Admins , OU=Groups,DC=Example,DC=com'), 'cn=admins,ou=groups,dc=example,dc=com');
  assert.is(canonicalDn('cn=a\\,b+uid=x,dc=c'), 'cn=a\\,b+uid=x,dc=c');
  assert.is(canonicalDn('uid=x+cn=a,dc=c'), 'cn=a+uid=x,dc=c');
  assert.is(canonicalDn('not a dn'), null);
  const settings = load(required).ldap!;
  assert.is(roleFor(settings, ['CN=Admins,OU=Groups,DC=example,DC=com']), 'ADMIN');
  assert.is(roleFor(settings, ['cn=other,dc=example,dc=com']), 'VIEWER');
  assert.is(roleFor({ ...settings, groupRoleMappings: settings.groupRoleMappings.slice(0, 1) }, []), null);
});

test.run();
