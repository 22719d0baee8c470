import type { DomainEvent } from '../decider.ts';

export const AUTH_METHODS = ['LOCAL', 'OAUTH2', 'LDAP'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** SYSTEM is internal: held only by the system user and by system API keys, never assignable. */
export const ROLES = ['SYSTEM', 'ADMIN', 'MEMBER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Events of one user's stream (`user-<id>`). Every event carries `userId` so a projection never
 * has to parse stream names. Times are ISO strings inside `data` because deciders see no metadata
 * and lockout/expiry rules need them. Never a password, never a token: only argon2id hashes and
 * token ids (a token is an HS256 JWT signed with SERVICE_SECRET whose payload is just its id, so an
 * id read from the log cannot be turned into a token).
 */

/** The two accounts created by bootstrap; they cannot be deleted and the admin's role is fixed. */
export type BuiltInUser = 'system' | 'default_admin';

export type UserCreated = DomainEvent<
  'UserCreated',
  {
    readonly userId: string;
    readonly username: string;
    /** Trimmed and lower-cased; null only for LDAP users without an email attribute. */
    readonly email: string | null;
    readonly role: Role;
    readonly authMethod: AuthMethod;
    /** argon2id PHC string; null = no usable password (external users, system user, SERVICE_ADMINS users). */
    readonly passwordHash: string | null;
    readonly passwordNeedsReset: boolean;
    readonly builtIn: BuiltInUser | null;
    readonly oauth2ClientId: string | null;
    readonly oauth2UserId: string | null;
    readonly ldapUniqueId: string | null;
    readonly at: string;
  }
>;

export type UsernameChanged = DomainEvent<
  'UsernameChanged',
  { readonly userId: string; readonly username: string; readonly previousUsername: string; readonly at: string }
>;

/** `self` (knew the current password), `admin` (forces a reset), `operator` (CLI recovery), `reset_token` (email link). */
export type PasswordChangeVia = 'self' | 'admin' | 'operator' | 'reset_token';

/** Also voids any pending password-reset token and clears the lockout. */
export type PasswordChanged = DomainEvent<
  'PasswordChanged',
  {
    readonly userId: string;
    readonly passwordHash: string;
    readonly needsReset: boolean;
    readonly via: PasswordChangeVia;
    readonly at: string;
  }
>;

/**
 * `syncedFrom`: the role an OAuth2 provider or LDAP directory gave at login (written on every such
 * login, even when it equals the previous role, so the log shows each sync); absent for an
 * admin's change.
 */
export type RoleChanged = DomainEvent<
  'RoleChanged',
  {
    readonly userId: string;
    readonly role: Role;
    readonly previousRole: Role;
    readonly syncedFrom?: Exclude<SessionVia, 'password'>;
    readonly at: string;
  }
>;

/**
 * The identity an OAuth2 provider or LDAP directory knows the user by, recorded when the user is
 * first matched by email (a pre-provisioned account, sign-up off) or moves to another provider:
 * from then on a login is matched by it, so a changed email at the provider still finds the user.
 * OAuth2: the provider's client id and the user's `sub` (the identity, as in the reference; the
 * IdP name only says which configuration it came through). LDAP: the unique-id attribute.
 * Users created by an external login carry the same ids in `UserCreated` instead.
 */
export type ExternalIdentityLinked = DomainEvent<
  'ExternalIdentityLinked',
  {
    readonly userId: string;
    readonly via: Exclude<SessionVia, 'password'>;
    /** The `<IDP>` name of the OAuth2 configuration; null for LDAP. */
    readonly provider: string | null;
    readonly oauth2ClientId: string | null;
    readonly oauth2UserId: string | null;
    readonly ldapUniqueId: string | null;
    readonly at: string;
  }
>;

/**
 * The provider reported another email for a user it already knows (by OAuth2 `sub` or LDAP unique
 * id). Nobody changes an email by hand; the provider is the authority on it.
 */
export type EmailChanged = DomainEvent<
  'EmailChanged',
  {
    readonly userId: string;
    readonly email: string;
    readonly previousEmail: string | null;
    readonly syncedFrom: Exclude<SessionVia, 'password'>;
    readonly at: string;
  }
>;

/** Ends everything the user holds: sessions, reset token, user API keys (a key dies with its owner). */
export type UserDeleted = DomainEvent<'UserDeleted', { readonly userId: string; readonly at: string }>;

export type LoginSucceeded = DomainEvent<'LoginSucceeded', { readonly userId: string; readonly at: string }>;

export type LoginFailed = DomainEvent<'LoginFailed', { readonly userId: string; readonly at: string }>;

export type AccountLocked = DomainEvent<'AccountLocked', { readonly userId: string; readonly until: string; readonly at: string }>;

export type SessionTokens = {
  readonly accessTokenId: string;
  readonly accessExpiresAt: string;
  readonly refreshTokenId: string;
  readonly refreshExpiresAt: string;
};

export type SessionVia = 'password' | 'oauth2' | 'ldap';

/** An access/refresh token pair was issued (tokens are JWTs carrying only these ids). */
export type SessionStarted = DomainEvent<
  'SessionStarted',
  SessionTokens & { readonly userId: string; readonly via: SessionVia; readonly at: string }
>;

/** The refresh token was used (single use): it and its paired access token end, a new pair starts. */
export type SessionRefreshed = DomainEvent<
  'SessionRefreshed',
  SessionTokens & { readonly userId: string; readonly consumedRefreshTokenId: string; readonly at: string }
>;

export type SessionsRevokedReason = 'logout' | 'password_changed' | 'role_changed';

/** Every access and refresh token of the user ends (logout signs out every browser). */
export type SessionsRevoked = DomainEvent<
  'SessionsRevoked',
  { readonly userId: string; readonly reason: SessionsRevokedReason; readonly at: string }
>;

/** A new reset token; any earlier one stops working (only the latest link is valid). */
export type PasswordResetRequested = DomainEvent<
  'PasswordResetRequested',
  { readonly userId: string; readonly tokenId: string; readonly expiresAt: string; readonly at: string }
>;

export type UserEvent =
  | UserCreated
  | UsernameChanged
  | ExternalIdentityLinked
  | EmailChanged
  | PasswordChanged
  | RoleChanged
  | UserDeleted
  | LoginSucceeded
  | LoginFailed
  | AccountLocked
  | SessionStarted
  | SessionRefreshed
  | SessionsRevoked
  | PasswordResetRequested;
