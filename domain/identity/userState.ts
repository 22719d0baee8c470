import type { AuthMethod } from './events.ts';
import type { BuiltInUser } from './events.ts';
import type { Role } from './roles.ts';

export type UserProfile = {
  readonly userId: string;
  readonly username: string;
  readonly email: string | null;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  readonly builtIn: BuiltInUser | null;
};

export type ActiveSession = {
  readonly accessTokenId: string;
  /** When the access token stops authenticating (the authenticator judges it on this stream when read models lag). */
  readonly accessExpiresAt: string;
  readonly refreshTokenId: string;
  readonly refreshExpiresAt: string;
};

/** The provider ids the user signs in with (from UserCreated, then ExternalIdentityLinked). */
export type ExternalIds = {
  readonly oauth2ClientId: string | null;
  readonly oauth2UserId: string | null;
  readonly ldapUniqueId: string | null;
};

/** Everything the user decider needs to judge a command; folded from the user's own stream only. */
export type UserState = {
  readonly status: 'absent' | 'active' | 'deleted';
  readonly profile: UserProfile | null;
  readonly external: ExternalIds;
  readonly passwordHash: string | null;
  readonly passwordNeedsReset: boolean;
  /** Failed logins since the last success, lock or password change. */
  readonly failedAttempts: number;
  readonly lockedUntil: string | null;
  /** Sessions whose refresh token is neither used, revoked nor (as of the last event) expired. */
  readonly sessions: readonly ActiveSession[];
  readonly resetToken: { readonly tokenId: string; readonly expiresAt: string } | null;
};
