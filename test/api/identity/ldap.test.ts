import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Socket } from 'node:net';
import { authenticateLdap } from '../../../api/identity/ldap/ldapDirectory.ts';
import { START } from '../../../domain/eventstore/types.ts';
import { loadConfig } from '../../../ops/config.ts';
import { ADMIN_DN, ADMIN_PASSWORD, BASE_DN, type SlapdPeer, startSlapd } from '../../peers/slapd.ts';
import { authEnv, callAs, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * LDAP logins against a real OpenLDAP (slapd) started for this file:
 * - `memberOf`: StartTLS with the CA file, a service account, a dead host first in the list,
 *   two user bases searched in order, roles from memberOf (overlay) with `*` last.
 * - `search`: LDAPS, anonymous bind, no-email mode with entryUUID as the identity, groups found
 *   by searching posixGroups for the user's `uid`; no `*` mapping.
 * - `plain`: TLS_MODE none, sign-up off, basic auth disabled.
 * - `uid`: TLS_MODE none, emails and entryUUID as the identity, `*` → VIEWER.
 */
type Ctx = {
  ldap: SlapdPeer;
  memberOf: TestServer;
  search: TestServer;
  plain: TestServer;
  uid: TestServer;
  plainAdmin: Credentials;
  admin: Credentials;
};
const test = suite<Ctx>('ldap logins', {} as Ctx);

const people = `ou=people,${BASE_DN}`;
const groups = `ou=groups,${BASE_DN}`;
const dn = (uid: string) => `uid=${uid},${people}`;

const PERSON = (uid: string, extra: Record<string, string | string[]>) => ({
  objectClass: ['inetOrgPerson'],
  uid,
  cn: uid,
  sn: uid,
  userPassword: `${uid}-Pässword!`,
  ...extra,
});

const common = { SERVICE_LDAP_USER_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(uid=%s))' };

test.before(async (ctx) => {
  ctx.ldap = await startSlapd();
  const { ldap } = ctx;
  await ldap.add(dn('alice'), PERSON('alice', { mail: 'Alice@Example.com', displayName: 'Alice Admin' }));
  await ldap.add(dn('bob'), PERSON('bob', { mail: 'bob@example.com', displayName: 'Bob Member' }));
  await ldap.add(dn('carol'), PERSON('carol', { mail: 'carol@example.com' }));
  await ldap.add(dn('dave'), PERSON('dave', { displayName: 'Dave NoMail' }));
  await ldap.add(dn('frank'), PERSON('frank', { mail: 'frank@example.com' }));
  await ldap.add(dn('jo'), PERSON('jo', { mail: 'jo@example.com' }));
  await ldap.add(dn('hank'), PERSON('hank', { mail: 'hank@example.com' }));
  await ldap.add(dn('greta'), PERSON('greta', { mail: 'greta@example.com', displayName: 'Greta' }));
  await ldap.add(dn('kim'), PERSON('kim', { mail: 'kim@example.com', displayName: 'Kim' }));
  await ldap.add(dn('lars'), PERSON('lars', { mail: 'lars@example.com', displayName: 'Lars' }));
  await ldap.add(`cn=admins,${groups}`, { objectClass: ['groupOfNames'], cn: 'admins', member: [dn('alice')] });
  await ldap.add(`cn=members,${groups}`, { objectClass: ['groupOfNames'], cn: 'members', member: [dn('bob'), dn('greta')] });
  await ldap.add(`cn=posix-admins,${groups}`, { objectClass: ['posixGroup'], cn: 'posix-admins', gidNumber: '1001', memberUid: ['alice'] });
  await ldap.add(`cn=posix-members,${groups}`, {
    objectClass: ['posixGroup'],
    cn: 'posix-members',
    gidNumber: '1002',
    memberUid: ['dave', 'bob'],
  });

  const memberOfEnv = authEnv({
    ...common,
    SERVICE_LDAP_HOST: '127.0.0.2, 127.0.0.1',
    SERVICE_LDAP_PORT: String(ldap.port),
    SERVICE_LDAP_TLS_MODE: 'starttls',
    SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile,
    SERVICE_LDAP_BIND_DN: ADMIN_DN,
    SERVICE_LDAP_BIND_PASSWORD: ADMIN_PASSWORD,
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([groups, people]),
    SERVICE_LDAP_ATTR_EMAIL: 'mail',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([
      { group_dn: `CN=Admins, OU=Groups, ${BASE_DN.toUpperCase()}`, role: 'admin' },
      { group_dn: `cn=members,${groups}`, role: 'MEMBER' },
      { group_dn: '*', role: 'VIEWER' },
    ]),
  });
  ctx.memberOf = await startTestServer({ env: memberOfEnv });
  ctx.admin = { bearer: memberOfEnv.SERVICE_ADMIN_SECRET };

  ctx.search = await startTestServer({
    env: authEnv({
      ...common,
      SERVICE_LDAP_HOST: '127.0.0.1',
      SERVICE_LDAP_PORT: String(ldap.ldapsPort),
      SERVICE_LDAP_TLS_MODE: 'ldaps',
      SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile,
      SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([people]),
      SERVICE_LDAP_ATTR_EMAIL: 'null',
      SERVICE_LDAP_ATTR_UNIQUE_ID: 'entryUUID',
      SERVICE_LDAP_GROUP_SEARCH_BASE_DNS: JSON.stringify([groups]),
      SERVICE_LDAP_GROUP_SEARCH_FILTER: '(&(objectClass=posixGroup)(memberUid=%s))',
      SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: 'uid',
      SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([
        { group_dn: `cn=posix-admins,${groups}`, role: 'ADMIN' },
        { group_dn: `cn=posix-members,${groups}`, role: 'MEMBER' },
      ]),
    }),
  });

  const plainEnv = authEnv({
    ...common,
    SERVICE_LDAP_HOST: '127.0.0.1',
    SERVICE_LDAP_PORT: String(ldap.port),
    SERVICE_LDAP_TLS_MODE: 'none',
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([people]),
    SERVICE_LDAP_ATTR_EMAIL: 'mail',
    SERVICE_LDAP_ALLOW_SIGN_UP: 'false',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([{ group_dn: '*', role: 'MEMBER' }]),
    SERVICE_DISABLE_BASIC_AUTH: 'true',
  });
  ctx.plain = await startTestServer({ env: plainEnv });
  ctx.plainAdmin = { bearer: plainEnv.SERVICE_ADMIN_SECRET };

  ctx.uid = await startTestServer({
    env: authEnv({
      ...common,
      SERVICE_LDAP_HOST: '127.0.0.1',
      SERVICE_LDAP_PORT: String(ldap.port),
      SERVICE_LDAP_TLS_MODE: 'none',
      SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([people]),
      SERVICE_LDAP_ATTR_EMAIL: 'mail',
      SERVICE_LDAP_ATTR_UNIQUE_ID: 'entryUUID',
      SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([{ group_dn: '*', role: 'VIEWER' }]),
    }),
  });
});

test.after(async (ctx) => {
  await ctx.memberOf?.close();
  await ctx.search?.close();
  await ctx.plain?.close();
  await ctx.uid?.close();
  await ctx.ldap?.close();
});

const ldapLogin = async (server: TestServer, username: string, password = `${username}-Pässword!`) => {
  const reply = await callAs(server, 'POST', '/auth/ldap/login', { json: { username, password } });
  const access = reply.cookies['loupe-access-token'];
  return {
    status: reply.status,
    body: reply.body,
    as: access === undefined ? null : ({ cookie: `loupe-access-token=${access}` } as Credentials),
  };
};

const me = async (server: TestServer, as: Credentials | null) => {
  assert.ok(as, 'a session cookie was set');
  const reply = await callAs(server, 'GET', '/v1/user', { as });
  assert.is(reply.status, 200);
  return reply.body.data as { id: string; username: string; email: string; role: string; auth_method: string };
};

const changeMail = async (ldap: SlapdPeer, uid: string, from: string, to: string) => {
  await ldap.modify(dn(uid), 'delete', 'mail', [from]);
  await ldap.modify(dn(uid), 'add', 'mail', [to]);
};

const eventsOf = async (server: TestServer, type: string) =>
  (await server.store.readAll(START, 100_000)).filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);

test('memberOf mode over StartTLS, after a dead host: the first matching mapping gives the role; same events as a local login', async ({
  memberOf,
}) => {
  const alice = await ldapLogin(memberOf, 'alice');
  assert.is(alice.status, 204);
  const user = await me(memberOf, alice.as);
  assert.equal([user.username, user.email, user.role, user.auth_method], ['Alice Admin', 'alice@example.com', 'ADMIN', 'LDAP']);
  const created = (await eventsOf(memberOf, 'UserCreated')).find((d) => d.email === 'alice@example.com')!;
  assert.equal([created.authMethod, created.passwordHash, created.role], ['LDAP', null, 'ADMIN']);
  const synced = (await eventsOf(memberOf, 'RoleChanged')).filter((d) => d.userId === created.userId);
  assert.equal(
    synced.map((d) => [d.role, d.syncedFrom]),
    [['ADMIN', 'ldap']],
  );
  assert.equal(
    (await eventsOf(memberOf, 'SessionStarted')).filter((d) => d.userId === created.userId).map((d) => d.via),
    ['ldap'],
  );
  assert.is((await me(memberOf, (await ldapLogin(memberOf, 'bob')).as)).role, 'MEMBER');
  const carol = await me(memberOf, (await ldapLogin(memberOf, 'carol')).as);
  assert.equal([carol.role, carol.username], ['VIEWER', 'carol'], '`*` for everyone; the username when there is no display name');
});

test('the role is synced on every login: leaving a group demotes', async ({ memberOf, ldap }) => {
  assert.is((await me(memberOf, (await ldapLogin(memberOf, 'greta')).as)).role, 'MEMBER');
  await ldap.modify(`cn=members,${groups}`, 'delete', 'member', [dn('greta')]);
  const again = await me(memberOf, (await ldapLogin(memberOf, 'greta')).as);
  assert.is(again.role, 'VIEWER');
  await ldap.modify(`cn=admins,${groups}`, 'add', 'member', [dn('greta')]);
  assert.is((await me(memberOf, (await ldapLogin(memberOf, 'greta')).as)).role, 'ADMIN');
  assert.is((await me(memberOf, (await ldapLogin(memberOf, 'greta')).as)).id, again.id, 'the same user (identified by email)');
});

test('wrong password, unknown user, missing fields and injection strings all get one 401', async ({ memberOf }) => {
  for (const [username, password] of [
    ['bob', 'wrong'],
    ['nobody', 'whatever'],
    ['*', 'bob-Pässword!'],
    [')(uid=*', 'bob-Pässword!'],
    ['*)(uid=*))(|(uid=*', 'bob-Pässword!'],
    ['bob\u0000', 'bob-Pässword!'],
    ['b*', 'bob-Pässword!'],
    ['bob\\', 'bob-Pässword!'],
  ]) {
    const reply = await ldapLogin(memberOf, username!, password);
    assert.is(reply.status, 401, JSON.stringify(username));
    assert.is(reply.body.detail, 'Invalid username and/or password');
    assert.is(reply.as, null);
  }
  for (const json of [{ username: 'bob' }, { username: '  ', password: 'x' }, { username: 'bob', password: '' }]) {
    assert.is((await callAs(memberOf, 'POST', '/auth/ldap/login', { json })).status, 401, 'an empty password is never an anonymous bind');
  }
  assert.is((await callAs(memberOf, 'POST', '/auth/ldap/login', { json: { username: 'bob', password: 'x', extra: 1 } })).status, 422);
});

test('lockout applies to LDAP usernames: after 5 failures even the right password is 429', async ({ memberOf }) => {
  for (let i = 0; i < 5; i++) assert.is((await ldapLogin(memberOf, 'frank', 'nope')).status, 401);
  const locked = await ldapLogin(memberOf, 'FRANK');
  assert.is(locked.status, 429);
  assert.is(locked.as, null);
});

test('a wrong password of an LDAP user with an account counts on its stream (LoginFailed, AccountLocked), where every process sees it', async ({
  memberOf,
}) => {
  assert.is((await ldapLogin(memberOf, 'jo')).status, 204, 'jo has an account');
  for (let i = 0; i < 5; i++) assert.is((await ldapLogin(memberOf, 'jo', 'nope')).status, 401);
  const joId = (await eventsOf(memberOf, 'UserCreated')).find((d) => d.email === 'jo@example.com')!.userId;
  assert.equal(
    (await memberOf.store.readStream(`user-${joId}`)).map((e) => e.type).filter((t) => t === 'LoginFailed' || t === 'AccountLocked'),
    ['LoginFailed', 'LoginFailed', 'LoginFailed', 'LoginFailed', 'LoginFailed', 'AccountLocked'],
  );
  assert.is((await ldapLogin(memberOf, 'jo')).status, 429);
});

test('an LDAP user has no password login; an email held by a local user is not taken over', async ({ memberOf, admin }) => {
  assert.is(
    (await callAs(memberOf, 'POST', '/auth/login', { json: { email: 'alice@example.com', password: 'alice-Pässword!' } })).status,
    401,
  );
  const local = await callAs(memberOf, 'POST', '/v1/users', {
    as: admin,
    json: {
      user: { email: 'hank@example.com', username: 'hank-local', role: 'ADMIN', auth_method: 'LOCAL', password: 'hank-pw-1' },
      send_welcome_email: false,
    },
  });
  assert.is(local.status, 201);
  assert.is((await ldapLogin(memberOf, 'hank')).status, 401);
});

test('group search mode over LDAPS, anonymous bind, no-email mode identified by entryUUID; no matching mapping is refused', async ({
  search,
}) => {
  const alice = await ldapLogin(search, 'alice');
  assert.is(alice.status, 204);
  const user = await me(search, alice.as);
  assert.equal([user.username, user.role, user.auth_method], ['Alice Admin', 'ADMIN', 'LDAP']);
  assert.ok(!user.email, 'no email in no-email mode');
  const created = (await eventsOf(search, 'UserCreated')).find((d) => d.username === 'Alice Admin')!;
  assert.match(String(created.ldapUniqueId), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
  assert.is(created.email, null);
  assert.is((await me(search, (await ldapLogin(search, 'alice')).as)).id, user.id, 'the same user on the next login');
  const dave = await me(search, (await ldapLogin(search, 'dave')).as);
  assert.equal([dave.username, dave.role], ['Dave NoMail', 'MEMBER']);
  assert.is((await ldapLogin(search, 'carol')).status, 401, 'in no group that is mapped');
});

test('plaintext mode, sign-up off, basic auth disabled: only pre-provisioned LDAP users; no password logins or local users', async ({
  plain,
  plainAdmin,
}) => {
  assert.is((await ldapLogin(plain, 'bob')).status, 401, 'not provisioned');
  const created = await callAs(plain, 'POST', '/v1/users', {
    as: plainAdmin,
    json: { user: { email: 'BOB@example.com', username: 'bobby', role: 'VIEWER', auth_method: 'LDAP' }, send_welcome_email: false },
  });
  assert.is(created.status, 201);
  const bob = await me(plain, (await ldapLogin(plain, 'bob')).as);
  assert.equal([bob.username, bob.role, bob.auth_method], ['bobby', 'MEMBER', 'LDAP']);
  assert.is((await callAs(plain, 'POST', '/auth/login', { json: { email: 'admin@localhost', password: 'admin' } })).status, 403);
  const local = await callAs(plain, 'POST', '/v1/users', {
    as: plainAdmin,
    json: {
      user: { email: 'l@example.com', username: 'l', role: 'VIEWER', auth_method: 'LOCAL', password: 'l-pw-12345' },
      send_welcome_email: false,
    },
  });
  assert.is(local.status, 403);
});

const directory = (extra: Record<string, string>) =>
  loadConfig({
    SERVICE_ENABLE_AUTH: 'true',
    SERVICE_SECRET: 'a-long-enough-secret-1234567890abcdef',
    SERVICE_LDAP_HOST: '127.0.0.1',
    SERVICE_LDAP_USER_SEARCH_FILTER: '(uid=%s)',
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([people]),
    SERVICE_LDAP_ATTR_EMAIL: 'mail',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "VIEWER"}]',
    ...extra,
  }).ldap!;

test('TLS_VERIFY: a server certificate from an unknown CA is refused unless verification is off', async ({ ldap }) => {
  const ldaps = { SERVICE_LDAP_TLS_MODE: 'ldaps', SERVICE_LDAP_PORT: String(ldap.ldapsPort) };
  const trusted = await authenticateLdap(directory({ ...ldaps, SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile }), 'bob', 'bob-Pässword!');
  assert.is(trusted.kind, 'ok');
  const untrusted = await authenticateLdap(
    directory({ ...ldaps, SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.otherCaFile }),
    'bob',
    'bob-Pässword!',
  );
  assert.is(untrusted.kind, 'unavailable');
  const system = await authenticateLdap(directory(ldaps), 'bob', 'bob-Pässword!');
  assert.is(system.kind, 'unavailable', 'not in the system trust store either');
  const unverified = await authenticateLdap(
    directory({ ...ldaps, SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.otherCaFile, SERVICE_LDAP_TLS_VERIFY: 'false' }),
    'bob',
    'bob-Pässword!',
  );
  assert.is(unverified.kind, 'ok');
  const startTlsUntrusted = await authenticateLdap(directory({ SERVICE_LDAP_PORT: String(ldap.port) }), 'bob', 'bob-Pässword!');
  assert.is(startTlsUntrusted.kind, 'unavailable', 'StartTLS (the default) verifies too');
});

test('TLS client certificate: a server that demands one accepts the configured pair and refuses a connection without it', async () => {
  const strict = await startSlapd({ requireClientCert: true });
  try {
    await strict.add(dn('ivy'), PERSON('ivy', { mail: 'ivy@example.com' }));
    const ldaps = {
      SERVICE_LDAP_TLS_MODE: 'ldaps',
      SERVICE_LDAP_PORT: String(strict.ldapsPort),
      SERVICE_LDAP_TLS_CA_CERT_FILE: strict.caFile,
    };
    const withCert = directory({
      ...ldaps,
      SERVICE_LDAP_TLS_CLIENT_CERT_FILE: strict.clientCertFile,
      SERVICE_LDAP_TLS_CLIENT_KEY_FILE: strict.clientKeyFile,
    });
    assert.is((await authenticateLdap(withCert, 'ivy', 'ivy-Pässword!')).kind, 'ok');
    assert.is((await authenticateLdap(directory(ldaps), 'ivy', 'ivy-Pässword!')).kind, 'unavailable');
    const startTls = directory({
      SERVICE_LDAP_PORT: String(strict.port),
      SERVICE_LDAP_TLS_CA_CERT_FILE: strict.caFile,
      SERVICE_LDAP_TLS_CLIENT_CERT_FILE: strict.clientCertFile,
      SERVICE_LDAP_TLS_CLIENT_KEY_FILE: strict.clientKeyFile,
    });
    assert.is((await authenticateLdap(startTls, 'ivy', 'ivy-Pässword!')).kind, 'ok', 'StartTLS presents it too');
  } finally {
    await strict.close();
  }
});

test('failover: dead hosts are skipped; when every host is dead the login is 503, not 401', async ({ ldap, memberOf }) => {
  const both = directory({
    SERVICE_LDAP_HOST: '127.0.0.3,127.0.0.2,127.0.0.1',
    SERVICE_LDAP_TLS_MODE: 'none',
    SERVICE_LDAP_PORT: String(ldap.port),
  });
  assert.is((await authenticateLdap(both, 'bob', 'bob-Pässword!')).kind, 'ok');
  const wrong = await authenticateLdap(both, 'bob', 'nope');
  assert.equal(wrong.kind === 'refused' && [wrong.reason, wrong.entry?.email], ['invalid password', 'bob@example.com']);
  const dead = directory({ SERVICE_LDAP_HOST: '127.0.0.2', SERVICE_LDAP_TLS_MODE: 'none', SERVICE_LDAP_PORT: String(ldap.port) });
  assert.is((await authenticateLdap(dead, 'bob', 'bob-Pässword!')).kind, 'unavailable');
  assert.ok(
    memberOf.logLines.every((line) => !line.includes('Pässword') && !line.includes(ADMIN_PASSWORD)),
    'no user or service-account password in the logs',
  );
  const events = JSON.stringify(await memberOf.store.readAll(START, 100_000), (_key, value) =>
    typeof value === 'bigint' ? String(value) : value,
  );
  assert.ok(!events.includes('Pässword') && !events.includes(ADMIN_PASSWORD), 'nor in any event');
});

test('identity: with ATTR_UNIQUE_ID a changed email stays the same user (EmailChanged); without it the email is the identity and a new user signs up', async ({
  ldap,
  uid,
  memberOf,
}) => {
  const kim = await me(uid, (await ldapLogin(uid, 'kim')).as);
  assert.is(kim.email, 'kim@example.com');
  await changeMail(ldap, 'kim', 'kim@example.com', 'Kim.Moved@Example.com');
  const moved = await me(uid, (await ldapLogin(uid, 'kim')).as);
  assert.equal([moved.id, moved.email, moved.username], [kim.id, 'kim.moved@example.com', 'Kim']);
  assert.ok(
    (await eventsOf(uid, 'EmailChanged')).some(
      (d) => d.email === 'kim.moved@example.com' && d.previousEmail === 'kim@example.com' && d.syncedFrom === 'ldap',
    ),
  );
  const lars = await me(memberOf, (await ldapLogin(memberOf, 'lars')).as);
  await changeMail(ldap, 'lars', 'lars@example.com', 'lars.moved@example.com');
  const newLars = await me(memberOf, (await ldapLogin(memberOf, 'lars')).as);
  assert.is.not(newLars.id, lars.id, 'identified by email: another user');
  assert.equal([newLars.email, newLars.auth_method], ['lars.moved@example.com', 'LDAP']);
  assert.match(newLars.username, /^Lars \([0-9a-f]{6}\)$/, 'the display name was taken: a suffix');
});

test('group search: %s is the login username unless GROUP_SEARCH_FILTER_USER_ATTR names an attribute of the entry', async ({ ldap }) => {
  const groupSearch = (extra: Record<string, string> = {}) =>
    directory({
      SERVICE_LDAP_TLS_MODE: 'none',
      SERVICE_LDAP_PORT: String(ldap.port),
      SERVICE_LDAP_GROUP_SEARCH_BASE_DNS: JSON.stringify([groups]),
      SERVICE_LDAP_GROUP_SEARCH_FILTER: '(&(objectClass=posixGroup)(memberUid=%s))',
      SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([
        { group_dn: `cn=posix-admins,${groups}`, role: 'ADMIN' },
        { group_dn: '*', role: 'VIEWER' },
      ]),
      ...extra,
    });
  const roleOf = async (settings: ReturnType<typeof directory>, username: string) => {
    const outcome = await authenticateLdap(settings, username, 'alice-Pässword!');
    assert.is(outcome.kind, 'ok');
    return outcome.kind === 'ok' ? [outcome.user.role, outcome.user.groups] : null;
  };
  assert.equal(await roleOf(groupSearch(), 'alice'), ['ADMIN', [`cn=posix-admins,${groups}`]], 'memberUid=alice (the login username)');
  // uid matches case-insensitively, memberUid exactly: the typed username finds the entry but not the group.
  assert.equal(await roleOf(groupSearch(), 'ALICE'), ['VIEWER', []]);
  assert.equal(await roleOf(groupSearch({ SERVICE_LDAP_GROUP_SEARCH_FILTER_USER_ATTR: 'uid' }), 'ALICE'), [
    'ADMIN',
    [`cn=posix-admins,${groups}`],
  ]);
});

test('ATTR_DISPLAY_NAME and ATTR_MEMBER_OF may name other attributes of the entry', async ({ ldap }) => {
  await ldap.add(
    dn('mia'),
    PERSON('mia', { mail: 'mia@example.com', displayName: 'Not This', description: 'Mia Described', seeAlso: `cn=admins,${groups}` }),
  );
  const settings = directory({
    SERVICE_LDAP_TLS_MODE: 'none',
    SERVICE_LDAP_PORT: String(ldap.port),
    SERVICE_LDAP_ATTR_DISPLAY_NAME: 'description',
    SERVICE_LDAP_ATTR_MEMBER_OF: 'seeAlso',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([
      { group_dn: `cn=admins,${groups}`, role: 'ADMIN' },
      { group_dn: '*', role: 'VIEWER' },
    ]),
  });
  const outcome = await authenticateLdap(settings, 'mia', 'mia-Pässword!');
  assert.equal(outcome.kind === 'ok' && [outcome.user.displayName, outcome.user.role], ['Mia Described', 'ADMIN']);
});

/** A host that accepts connections and never answers (a hung replica); counts who connected. */
const silentHost = async (host: string, port: number) => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    connections: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

test('failover table: a host that times out → the next; an unknown user or a wrong password → no failover', async ({ ldap }) => {
  const hung = await silentHost('127.0.0.5', ldap.port);
  const quick = { connectMs: 1_000, operationMs: 500, overallMs: 10_000 };
  const hosts = (list: string) =>
    directory({ SERVICE_LDAP_HOST: list, SERVICE_LDAP_TLS_MODE: 'none', SERVICE_LDAP_PORT: String(ldap.port) });
  try {
    const afterTimeout = await authenticateLdap(hosts('127.0.0.5,127.0.0.1'), 'bob', 'bob-Pässword!', quick);
    assert.is(afterTimeout.kind, 'ok', 'the hung host timed out and the next one answered');
    assert.is(hung.connections(), 1);
    const liveFirst = hosts('127.0.0.1,127.0.0.5');
    const unknown = await authenticateLdap(liveFirst, 'nobody', 'whatever', quick);
    assert.equal(unknown.kind === 'refused' && unknown.reason, 'user not found');
    const wrong = await authenticateLdap(liveFirst, 'bob', 'nope', quick);
    assert.equal(wrong.kind === 'refused' && wrong.reason, 'invalid password');
    assert.is(hung.connections(), 1, 'the second host was never asked');
    const allHung = await authenticateLdap(hosts('127.0.0.5'), 'bob', 'bob-Pässword!', quick);
    assert.is(allHung.kind, 'unavailable');
  } finally {
    await hung.close();
  }
});

test.run();
