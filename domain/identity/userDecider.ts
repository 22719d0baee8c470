import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type {
  ChangePassword,
  ChangeRole,
  CreateUser,
  LinkExternalIdentity,
  LogIn,
  RefreshSession,
  ResetPassword,
  StartSession,
  SyncEmail,
  UserCommand,
} from './commands.ts';
import { cleanEmail } from './email.ts';
import type { PasswordChanged, SessionsRevoked, SessionsRevokedReason, SessionTokens, UserEvent } from './events.ts';
import { isLocked, LOCKED_MESSAGE, lockedUntil } from './lockout.ts';
import { assertPasswordHash } from './passwordHash.ts';
import { textProblem } from '../base/textRule.ts';
import { cleanUsername } from './username.ts';
import type { ActiveSession, UserProfile, UserState } from './userState.ts';

const initialState = (): UserState => ({
  status: 'absent',
  profile: null,
  external: { oauth2ClientId: null, oauth2UserId: null, ldapUniqueId: null },
  passwordHash: null,
  passwordNeedsReset: false,
  failedAttempts: 0,
  lockedUntil: null,
  sessions: [],
  resetToken: null,
});

const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b);

/** Sessions whose refresh token has expired are dropped as time passes, so the state stays small. */
const liveSessions = (sessions: readonly ActiveSession[], now: string): ActiveSession[] =>
  sessions.filter((s) => before(now, s.refreshExpiresAt));

const sessionOf = (d: SessionTokens): ActiveSession => ({
  accessTokenId: d.accessTokenId,
  accessExpiresAt: d.accessExpiresAt,
  refreshTokenId: d.refreshTokenId,
  refreshExpiresAt: d.refreshExpiresAt,
});

const withProfile = (state: UserState, change: Partial<UserProfile>): UserState =>
  state.profile === null ? state : { ...state, profile: { ...state.profile, ...change } };

const evolve = (state: UserState, event: UserEvent): UserState => {
  switch (event.type) {
    case 'UserCreated': {
      const d = event.data;
      return {
        ...initialState(),
        status: 'active',
        profile: { userId: d.userId, username: d.username, email: d.email, role: d.role, authMethod: d.authMethod, builtIn: d.builtIn },
        external: { oauth2ClientId: d.oauth2ClientId, oauth2UserId: d.oauth2UserId, ldapUniqueId: d.ldapUniqueId },
        passwordHash: d.passwordHash,
        passwordNeedsReset: d.passwordNeedsReset,
      };
    }
    case 'UsernameChanged':
      return withProfile(state, { username: event.data.username });
    case 'ExternalIdentityLinked': {
      const d = event.data;
      return { ...state, external: { oauth2ClientId: d.oauth2ClientId, oauth2UserId: d.oauth2UserId, ldapUniqueId: d.ldapUniqueId } };
    }
    case 'EmailChanged':
      return withProfile(state, { email: event.data.email });
    case 'RoleChanged':
      return withProfile(state, { role: event.data.role });
    case 'PasswordChanged':
      return {
        ...state,
        passwordHash: event.data.passwordHash,
        passwordNeedsReset: event.data.needsReset,
        failedAttempts: 0,
        lockedUntil: null,
        resetToken: null,
      };
    case 'UserDeleted':
      return { ...state, status: 'deleted', sessions: [], resetToken: null };
    case 'LoginSucceeded':
      return { ...state, failedAttempts: 0, lockedUntil: null };
    case 'LoginFailed':
      return { ...state, failedAttempts: state.failedAttempts + 1 };
    case 'AccountLocked':
      return { ...state, failedAttempts: 0, lockedUntil: event.data.until };
    case 'SessionStarted': {
      const d = event.data;
      return {
        ...state,
        sessions: [...liveSessions(state.sessions, d.at), sessionOf(d)],
      };
    }
    case 'SessionRefreshed': {
      const d = event.data;
      const kept = liveSessions(state.sessions, d.at).filter((s) => s.refreshTokenId !== d.consumedRefreshTokenId);
      return { ...state, sessions: [...kept, sessionOf(d)] };
    }
    case 'SessionsRevoked':
      return { ...state, sessions: [] };
    case 'PasswordResetRequested':
      return { ...state, resetToken: { tokenId: event.data.tokenId, expiresAt: event.data.expiresAt } };
  }
};

const requireUser = (state: UserState): UserProfile => {
  if (state.status !== 'active' || state.profile === null) throw new DomainError('user_not_found', 'User not found', 'not_found');
  return state.profile;
};

const requireLocal = (user: UserProfile): void => {
  if (user.authMethod !== 'LOCAL') throw new DomainError('password_not_local', 'Cannot modify password for non-local user', 'invalid');
};

/** A logout-everywhere event, or nothing when no session is alive anyway. */
const revokeSessions = (state: UserState, userId: string, reason: SessionsRevokedReason, now: string): SessionsRevoked[] =>
  liveSessions(state.sessions, now).length === 0 ? [] : [{ type: 'SessionsRevoked', data: { userId, reason, at: now } }];

/** OAuth2 and LDAP identifiers come from identity providers: ids, never essays. */
const EXTERNAL_ID_MAX_LENGTH = 512;
const externalIds = (c: CreateUser | LinkExternalIdentity): [string, string | null][] => [
  ['OAuth2 client id', c.oauth2ClientId ?? null],
  ['OAuth2 user id', c.oauth2UserId ?? null],
  ['LDAP unique id', c.ldapUniqueId ?? null],
];

const checkExternalIds = (c: CreateUser | LinkExternalIdentity): void => {
  for (const [field, value] of externalIds(c)) {
    const problem = value === null ? null : textProblem(value, { maxLength: EXTERNAL_ID_MAX_LENGTH });
    if (problem !== null) throw new DomainError('external_id_invalid', `${field} ${problem}`, 'invalid');
  }
};

/** An external login acts only on a user of its own kind. */
const requireExternal = (state: UserState, via: StartSession['via']): UserProfile => {
  const user = requireUser(state);
  if (user.authMethod !== (via === 'oauth2' ? 'OAUTH2' : 'LDAP')) {
    throw new DomainError('session_method_mismatch', `User does not sign in through ${via}`, 'invalid');
  }
  return user;
};

const linkExternalIdentity = (c: LinkExternalIdentity, state: UserState): UserEvent[] => {
  const user = requireExternal(state, c.via);
  checkExternalIds(c);
  const ids = { oauth2ClientId: c.oauth2ClientId, oauth2UserId: c.oauth2UserId, ldapUniqueId: c.ldapUniqueId };
  const same =
    ids.oauth2ClientId === state.external.oauth2ClientId &&
    ids.oauth2UserId === state.external.oauth2UserId &&
    ids.ldapUniqueId === state.external.ldapUniqueId;
  if (same) return [];
  return [{ type: 'ExternalIdentityLinked', data: { userId: user.userId, via: c.via, provider: c.provider, ...ids, at: c.now } }];
};

const syncEmail = (c: SyncEmail, state: UserState): UserEvent[] => {
  const user = requireExternal(state, c.via);
  const email = cleanEmail(c.email);
  if (email === user.email) return [];
  return [{ type: 'EmailChanged', data: { userId: user.userId, email, previousEmail: user.email, syncedFrom: c.via, at: c.now } }];
};

const createUser = (c: CreateUser, state: UserState): UserEvent[] => {
  if (state.status !== 'absent') throw new DomainError('user_exists', 'User already exists', 'conflict');
  const builtIn = c.builtIn ?? null;
  const username = cleanUsername(c.username);
  const email = c.email === null ? null : cleanEmail(c.email, { builtIn: builtIn !== null });
  if (email === null && c.authMethod !== 'LDAP') throw new DomainError('email_required', 'Email is required', 'invalid');
  checkExternalIds(c);
  if ((c.role === 'SYSTEM') !== (builtIn === 'system')) {
    throw new DomainError('system_role_forbidden', 'Cannot create users with SYSTEM role', 'invalid');
  }
  if (c.authMethod !== 'LOCAL' && c.passwordHash !== null) {
    throw new DomainError('password_not_local', 'Only local users have a password', 'invalid');
  }
  if (c.basicAuthDisabled === true && c.authMethod === 'LOCAL' && builtIn === null) {
    throw new DomainError('basic_auth_disabled', 'Basic auth is disabled: local users cannot be created', 'forbidden');
  }
  return [
    {
      type: 'UserCreated',
      data: {
        userId: c.userId,
        username,
        email,
        role: c.role,
        authMethod: c.authMethod,
        passwordHash: c.passwordHash === null ? null : assertPasswordHash(c.passwordHash),
        passwordNeedsReset: c.authMethod === 'LOCAL' && c.passwordNeedsReset,
        builtIn,
        oauth2ClientId: c.oauth2ClientId ?? null,
        oauth2UserId: c.oauth2UserId ?? null,
        ldapUniqueId: c.ldapUniqueId ?? null,
        at: c.now,
      },
    },
  ];
};

/** The presented password matched the hash the user has now (not one replaced meanwhile). */
const passwordMatches = (state: UserState, check: { matches: boolean; verifiedHash: string | null }): boolean =>
  check.matches && state.passwordHash !== null && check.verifiedHash === state.passwordHash;

const changePassword = (c: ChangePassword, state: UserState): UserEvent[] => {
  const user = requireUser(state);
  requireLocal(user);
  if (c.by.kind === 'self' && !passwordMatches(state, c.by.currentPassword)) {
    throw new DomainError('invalid_current_password', 'Valid current password is required to modify password', 'invalid');
  }
  const changed: PasswordChanged = {
    type: 'PasswordChanged',
    data: {
      userId: user.userId,
      passwordHash: assertPasswordHash(c.passwordHash),
      needsReset: c.by.kind === 'admin',
      via: c.by.kind,
      at: c.now,
    },
  };
  return [changed, ...revokeSessions(state, user.userId, 'password_changed', c.now)];
};

const changeRole = (c: ChangeRole, state: UserState): UserEvent[] => {
  const user = requireUser(state);
  if (c.role === 'SYSTEM') throw new DomainError('system_role_forbidden', 'Cannot assign the SYSTEM role', 'invalid');
  if (user.builtIn === 'default_admin')
    throw new DomainError('builtin_role_fixed', 'Cannot modify role for the default admin user', 'forbidden');
  if (user.builtIn === 'system') throw new DomainError('builtin_role_fixed', 'Cannot modify role for the system user', 'forbidden');
  if (c.byUserId === user.userId) throw new DomainError('own_role', 'Cannot modify own role', 'forbidden');
  if (c.role === user.role) return [];
  return [
    { type: 'RoleChanged', data: { userId: user.userId, role: c.role, previousRole: user.role, at: c.now } },
    ...revokeSessions(state, user.userId, 'role_changed', c.now),
  ];
};

/**
 * Lockout is judged here, on the user's own stream, so it holds across restarts and across
 * processes: a concurrent attempt makes the append conflict and the attempt is judged again on
 * the fresher count.
 */
const logIn = (c: LogIn, state: UserState): UserEvent[] => {
  const user = requireUser(state);
  if (isLocked(state, c.now, c.lockout)) throw new DomainError('account_locked', LOCKED_MESSAGE, 'locked');
  if (user.authMethod === 'LOCAL' && passwordMatches(state, c.password)) {
    return [
      { type: 'LoginSucceeded', data: { userId: user.userId, at: c.now } },
      { type: 'SessionStarted', data: { userId: user.userId, via: 'password', ...c.session, at: c.now } },
    ];
  }
  const failures = state.failedAttempts + 1;
  const lock: UserEvent[] =
    c.lockout.enabled && failures >= c.lockout.maxAttempts
      ? [{ type: 'AccountLocked', data: { userId: user.userId, until: lockedUntil(c.now), at: c.now } }]
      : [];
  return [{ type: 'LoginFailed', data: { userId: user.userId, at: c.now } }, ...lock];
};

const startSession = (c: StartSession, state: UserState): UserEvent[] => {
  const user = requireExternal(state, c.via);
  if (c.lockout !== undefined && isLocked(state, c.now, c.lockout)) throw new DomainError('account_locked', LOCKED_MESSAGE, 'locked');
  // A success ends the count of failed attempts, as a password login's does.
  const succeeded: UserEvent[] = state.failedAttempts > 0 ? [{ type: 'LoginSucceeded', data: { userId: user.userId, at: c.now } }] : [];
  // The provider is the authority on the role: no self-change rule, and the session just starting
  // is the one that should carry it, so nothing is revoked.
  const sync: UserEvent[] =
    c.role === undefined || c.role === null
      ? []
      : [{ type: 'RoleChanged', data: { userId: user.userId, role: c.role, previousRole: user.role, syncedFrom: c.via, at: c.now } }];
  return [...succeeded, ...sync, { type: 'SessionStarted', data: { userId: user.userId, via: c.via, ...c.session, at: c.now } }];
};

const refreshSession = (c: RefreshSession, state: UserState): UserEvent[] => {
  const user = requireUser(state);
  const session = state.sessions.find((s) => s.refreshTokenId === c.refreshTokenId);
  if (session === undefined) throw new DomainError('invalid_refresh_token', 'Invalid refresh token', 'unauthenticated');
  if (!before(c.now, session.refreshExpiresAt)) throw new DomainError('expired_refresh_token', 'Expired refresh token', 'unauthenticated');
  return [{ type: 'SessionRefreshed', data: { userId: user.userId, consumedRefreshTokenId: c.refreshTokenId, ...c.next, at: c.now } }];
};

const resetPassword = (c: ResetPassword, state: UserState): UserEvent[] => {
  const token = state.resetToken;
  if (
    state.status !== 'active' ||
    state.profile === null ||
    state.profile.authMethod !== 'LOCAL' ||
    token === null ||
    token.tokenId !== c.tokenId ||
    !before(c.now, token.expiresAt)
  ) {
    throw new DomainError('invalid_reset_token', 'Invalid token', 'unauthenticated');
  }
  const userId = state.profile.userId;
  return [
    {
      type: 'PasswordChanged',
      data: { userId, passwordHash: assertPasswordHash(c.passwordHash), needsReset: false, via: 'reset_token', at: c.now },
    },
    ...revokeSessions(state, userId, 'password_changed', c.now),
  ];
};

const decide = (command: UserCommand, state: UserState): UserEvent[] => {
  switch (command.type) {
    case 'CreateUser':
      return createUser(command, state);
    case 'ChangeUsername': {
      const user = requireUser(state);
      const username = cleanUsername(command.username);
      if (username === user.username) return [];
      return [{ type: 'UsernameChanged', data: { userId: user.userId, username, previousUsername: user.username, at: command.now } }];
    }
    case 'ChangePassword':
      return changePassword(command, state);
    case 'ChangeRole':
      return changeRole(command, state);
    case 'DeleteUser': {
      const user = requireUser(state);
      if (user.builtIn !== null) throw new DomainError('builtin_user', 'Cannot delete the default admin or system user', 'forbidden');
      return [{ type: 'UserDeleted', data: { userId: user.userId, at: command.now } }];
    }
    case 'LogIn':
      return logIn(command, state);
    case 'StartSession':
      return startSession(command, state);
    case 'LinkExternalIdentity':
      return linkExternalIdentity(command, state);
    case 'SyncEmail':
      return syncEmail(command, state);
    case 'RefreshSession':
      return refreshSession(command, state);
    case 'LogOut':
      return state.status === 'active' && state.profile !== null ? revokeSessions(state, state.profile.userId, 'logout', command.now) : [];
    case 'RequestPasswordReset': {
      const user = requireUser(state);
      requireLocal(user);
      return [
        {
          type: 'PasswordResetRequested',
          data: { userId: user.userId, tokenId: command.tokenId, expiresAt: command.expiresAt, at: command.now },
        },
      ];
    }
    case 'ResetPassword':
      return resetPassword(command, state);
  }
};

/** The decider of one user's stream (`user-<id>`, see userStream). */
export const userDecider: Decider<UserState, UserCommand, UserEvent> = { initialState, evolve, decide };
