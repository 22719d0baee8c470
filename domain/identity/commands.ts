import type { AuthMethod } from './events.ts';
import type { BuiltInUser, SessionTokens, SessionVia } from './events.ts';
import type { AssignableRole, Role } from './roles.ts';

/**
 * Commands on one user's stream. Hashing, password verification and id/token generation happen
 * before a command is built (they are slow or random); a command carries their results and the
 * current time, so the decider stays pure.
 */

export type CreateUser = {
  readonly type: 'CreateUser';
  readonly userId: string;
  readonly username: string;
  readonly email: string | null;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  readonly passwordHash: string | null;
  readonly passwordNeedsReset: boolean;
  /** Only bootstrap sets it; it is what allows the SYSTEM role. */
  readonly builtIn?: BuiltInUser;
  readonly oauth2ClientId?: string | null;
  readonly oauth2UserId?: string | null;
  readonly ldapUniqueId?: string | null;
  /** `SERVICE_DISABLE_BASIC_AUTH`: no new local users (bootstrap's built-ins excepted). */
  readonly basicAuthDisabled?: boolean;
  readonly now: string;
};

export type ChangeUsername = { readonly type: 'ChangeUsername'; readonly userId: string; readonly username: string; readonly now: string };

/** The result of checking a presented password against `verifiedHash` outside the decider. */
export type PasswordCheck = { readonly matches: boolean; readonly verifiedHash: string | null };

export type ChangePassword = {
  readonly type: 'ChangePassword';
  readonly userId: string;
  /** Hash of a password that already passed the policy. */
  readonly passwordHash: string;
  /**
   * `self` must prove the current password and clears the reset flag; `admin` sets it (the user
   * must choose their own at next login); `operator` is the CLI recovery and clears it.
   */
  readonly by:
    | { readonly kind: 'self'; readonly currentPassword: PasswordCheck }
    | { readonly kind: 'admin' }
    | { readonly kind: 'operator' };
  readonly now: string;
};

export type ChangeRole = {
  readonly type: 'ChangeRole';
  readonly userId: string;
  readonly role: Role;
  /** Who asks: nobody may change their own role. */
  readonly byUserId: string | null;
  readonly now: string;
};

export type DeleteUser = { readonly type: 'DeleteUser'; readonly userId: string; readonly now: string };

export type LockoutSettings = {
  /** false with `SERVICE_DISABLE_BRUTE_FORCE_LOGIN_PROTECTION=true`. */
  readonly enabled: boolean;
  /** `SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS`. */
  readonly maxAttempts: number;
};

/** A password login attempt; `password` tells how the presented password compared. */
export type LogIn = {
  readonly type: 'LogIn';
  readonly userId: string;
  readonly password: PasswordCheck;
  readonly lockout: LockoutSettings;
  /** The pair to issue when the login succeeds. */
  readonly session: SessionTokens;
  readonly now: string;
};

/** A session for a user an external provider (OAuth2, LDAP) has just authenticated. */
export type StartSession = {
  readonly type: 'StartSession';
  readonly userId: string;
  readonly via: Exclude<SessionVia, 'password'>;
  /** The role the provider gives (synced before the session starts); null = it says nothing about roles. */
  readonly role?: AssignableRole | null;
  /** When given, a locked account (failed LDAP passwords) is refused with `account_locked`. */
  readonly lockout?: LockoutSettings;
  readonly session: SessionTokens;
  readonly now: string;
};

/** Record the provider ids an external login matched this user by email with (see ExternalIdentityLinked). */
export type LinkExternalIdentity = {
  readonly type: 'LinkExternalIdentity';
  readonly userId: string;
  readonly via: Exclude<SessionVia, 'password'>;
  readonly provider: string | null;
  readonly oauth2ClientId: string | null;
  readonly oauth2UserId: string | null;
  readonly ldapUniqueId: string | null;
  readonly now: string;
};

/** The email a provider reports for a user it knows; nothing happens when it is the stored one. */
export type SyncEmail = {
  readonly type: 'SyncEmail';
  readonly userId: string;
  readonly via: Exclude<SessionVia, 'password'>;
  readonly email: string;
  readonly now: string;
};

export type RefreshSession = {
  readonly type: 'RefreshSession';
  readonly userId: string;
  readonly refreshTokenId: string;
  readonly next: SessionTokens;
  readonly now: string;
};

export type LogOut = { readonly type: 'LogOut'; readonly userId: string; readonly now: string };

export type RequestPasswordReset = {
  readonly type: 'RequestPasswordReset';
  readonly userId: string;
  readonly tokenId: string;
  readonly expiresAt: string;
  readonly now: string;
};

export type ResetPassword = {
  readonly type: 'ResetPassword';
  readonly userId: string;
  readonly tokenId: string;
  readonly passwordHash: string;
  readonly now: string;
};

export type UserCommand =
  | CreateUser
  | ChangeUsername
  | ChangePassword
  | ChangeRole
  | DeleteUser
  | LogIn
  | StartSession
  | LinkExternalIdentity
  | SyncEmail
  | RefreshSession
  | LogOut
  | RequestPasswordReset
  | ResetPassword;
