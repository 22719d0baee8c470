import type { CommonQueryMethods } from 'slonik';
import { suite } from 'uvu';
import type { SessionTokens, UserCreated, UserEvent } from '../../../domain/identity/events.ts';
import { userStream } from '../../../domain/identity/userStream.ts';
import { createAuthLiveModel } from '../../../projections/identity/authLiveModel.ts';
import { findUser, listUsers, type UserRow } from '../../../projections/identity/userQueries.ts';
import { usersProjection } from '../../../projections/identity/usersProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

/**
 * The users read model, given/when/then: users as the API lists them (never a password hash),
 * and the live session and reset tokens the auth live model loads at start.
 */
const test = suite('users read model');
const spec = projectionSpec(usersProjection);

const ada = '00000000-0000-4000-8000-00000000000a';
const bob = '00000000-0000-4000-8000-00000000000b';
const LATER = '2099-01-01T00:00:00.000Z';

const created = (userId: string, username: string, at: string, extra: Partial<UserCreated['data']> = {}): UserCreated => ({
  type: 'UserCreated',
  data: {
    userId,
    username,
    email: `${username}@example.com`,
    role: 'MEMBER',
    authMethod: 'LOCAL',
    passwordHash: '$argon2id$not-a-real-hash',
    passwordNeedsReset: false,
    builtIn: null,
    oauth2ClientId: null,
    oauth2UserId: null,
    ldapUniqueId: null,
    at,
    ...extra,
  },
});
const of = (userId: string, ...events: UserEvent[]) => inStream(userStream(userId), ...events);
const adaCreated = created(ada, 'ada', '2024-01-01T00:00:00.000Z', { passwordNeedsReset: true });
const bobCreated = created(bob, 'bob', '2024-01-02T00:00:00.000Z', {
  email: null,
  authMethod: 'LDAP',
  passwordHash: null,
  role: 'VIEWER',
  ldapUniqueId: 'uid-bob',
});

/** A row as listed, without the ordinal (the log position the store gave the event). */
const shown = ({ ordinal: _ordinal, ...row }: UserRow) => row;
const row = (e: UserCreated, changes: Partial<ReturnType<typeof shown>> = {}) => ({
  userId: e.data.userId,
  username: e.data.username,
  email: e.data.email,
  role: e.data.role,
  authMethod: e.data.authMethod,
  passwordNeedsReset: e.data.passwordNeedsReset,
  builtIn: e.data.builtIn,
  oauth2ClientId: e.data.oauth2ClientId,
  oauth2UserId: e.data.oauth2UserId,
  ldapUniqueId: e.data.ldapUniqueId,
  createdAt: e.data.at,
  updatedAt: e.data.at,
  ...changes,
});
const listed = async (db: CommonQueryMethods) => (await listUsers(db, { fromUserId: null, limit: 10 }))!.users.map(shown);
const user = async (db: CommonQueryMethods, userId: string) => {
  const found = await findUser(db, userId);
  return found && shown(found);
};

/** The live tokens as the auth live model loads them at start (`kind:id→owner`), sorted. */
const tokens = async (db: CommonQueryMethods): Promise<string[]> => {
  const { model, state } = createAuthLiveModel();
  await model.load(db);
  return [
    ...[...state.accessTokens].map(([id, t]) => `access:${id}→${t.userId} (with ${t.refreshTokenId})`),
    ...[...state.refreshTokens].map(([id, t]) => `refresh:${id}→${t.userId} (with ${t.accessTokenId})`),
    ...[...state.resetTokens].map(([id, t]) => `reset:${id}→${t.userId}`),
  ].sort();
};
const pair = (n: number): SessionTokens => ({
  accessTokenId: `access-${n}`,
  accessExpiresAt: LATER,
  refreshTokenId: `refresh-${n}`,
  refreshExpiresAt: LATER,
});

test('given two users, then they are listed newest first, as created', async () => {
  await spec.given(of(ada, adaCreated), of(bob, bobCreated)).then(listed, [row(bobCreated), row(adaCreated)]);
});

test('given a user, when renamed, re-roled, linked, re-mailed and given a password, then the row shows each change and when', async () => {
  const at = (day: number) => `2024-01-0${day}T00:00:00.000Z`;
  await spec
    .given(
      of(
        ada,
        adaCreated,
        { type: 'UsernameChanged', data: { userId: ada, username: 'ada2', previousUsername: 'ada', at: at(2) } },
        { type: 'RoleChanged', data: { userId: ada, role: 'ADMIN', previousRole: 'MEMBER', at: at(3) } },
        {
          type: 'ExternalIdentityLinked',
          data: {
            userId: ada,
            via: 'oauth2',
            provider: 'idp',
            oauth2ClientId: 'client',
            oauth2UserId: 'sub-1',
            ldapUniqueId: null,
            at: at(4),
          },
        },
        {
          type: 'EmailChanged',
          data: { userId: ada, email: 'ada@new.example.com', previousEmail: 'ada@example.com', syncedFrom: 'oauth2', at: at(5) },
        },
        { type: 'PasswordChanged', data: { userId: ada, passwordHash: '$argon2id$other', needsReset: false, via: 'self', at: at(6) } },
        // logins and lockouts are not part of the row
        { type: 'LoginFailed', data: { userId: ada, at: at(7) } },
        { type: 'AccountLocked', data: { userId: ada, until: at(8), at: at(7) } },
        { type: 'LoginSucceeded', data: { userId: ada, at: at(9) } },
      ),
    )
    .then(
      (db) => user(db, ada),
      row(adaCreated, {
        username: 'ada2',
        role: 'ADMIN',
        oauth2ClientId: 'client',
        oauth2UserId: 'sub-1',
        email: 'ada@new.example.com',
        passwordNeedsReset: false,
        updatedAt: at(6),
      }),
    );
});

test('given sessions and reset requests, then only the live tokens are kept: the refreshed pair and the latest reset token', async () => {
  const at = '2024-01-02T00:00:00.000Z';
  const sessions = of(
    ada,
    adaCreated,
    { type: 'SessionStarted', data: { ...pair(1), userId: ada, via: 'password', at } },
    { type: 'SessionRefreshed', data: { ...pair(2), userId: ada, consumedRefreshTokenId: 'refresh-1', at } },
    { type: 'SessionStarted', data: { ...pair(3), userId: ada, via: 'password', at } },
    { type: 'PasswordResetRequested', data: { userId: ada, tokenId: 'reset-1', expiresAt: LATER, at } },
    { type: 'PasswordResetRequested', data: { userId: ada, tokenId: 'reset-2', expiresAt: LATER, at } },
  );
  await spec
    .given(sessions)
    .then(tokens, [
      `access:access-2→${ada} (with refresh-2)`,
      `access:access-3→${ada} (with refresh-3)`,
      `refresh:refresh-2→${ada} (with access-2)`,
      `refresh:refresh-3→${ada} (with access-3)`,
      `reset:reset-2→${ada}`,
    ]);
  // a logout ends every session but not the reset link; a new password ends the reset link
  await spec
    .given(sessions, of(ada, { type: 'SessionsRevoked', data: { userId: ada, reason: 'logout', at } }))
    .then(tokens, [`reset:reset-2→${ada}`]);
  await spec
    .given(
      sessions,
      of(ada, {
        type: 'PasswordChanged',
        data: { userId: ada, passwordHash: '$argon2id$other', needsReset: false, via: 'reset_token', at },
      }),
    )
    .then(tokens, [
      `access:access-2→${ada} (with refresh-2)`,
      `access:access-3→${ada} (with refresh-3)`,
      `refresh:refresh-2→${ada} (with access-2)`,
      `refresh:refresh-3→${ada} (with access-3)`,
    ]);
});

test('given two users with sessions, when one is deleted, then it and its tokens are gone and the other stays', async () => {
  const at = '2024-01-03T00:00:00.000Z';
  await spec
    .given(
      of(ada, adaCreated, { type: 'SessionStarted', data: { ...pair(1), userId: ada, via: 'password', at } }),
      of(bob, bobCreated, { type: 'SessionStarted', data: { ...pair(2), userId: bob, via: 'ldap', at } }),
      of(ada, { type: 'UserDeleted', data: { userId: ada, at } }),
    )
    .then(async (db) => ({ users: await listed(db), tokens: await tokens(db) }), {
      users: [row(bobCreated)],
      tokens: [`access:access-2→${bob} (with refresh-2)`, `refresh:refresh-2→${bob} (with access-2)`],
    });
});

test('given crafted events (a NUL and a lone surrogate in a name and email, a user created twice), then a row Postgres accepts, the first one kept', async () => {
  const crafted = created(ada, 'a\u0000d\ud800a', '2024-01-01T00:00:00.000Z');
  await spec
    .given(of(ada, crafted, created(ada, 'again', '2024-01-05T00:00:00.000Z')))
    .then(listed, [row(crafted, { username: 'a\ufffdd\ufffda', email: 'a\ufffdd\ufffda@example.com' })]);
});

test.run();
