import type { AuthState } from '../../projections/identity/authState.ts';
import type { AuthFreshness } from '../../projections/identity/authFreshness.ts';
import type { PasswordHasher } from '../../domain/identity/passwords.ts';
import type { UnknownAccountLockout } from '../../domain/identity/unknownAccountLockout.ts';
import type { SecretKeyring } from '../../domain/secrets/crypto.ts';
import type { Mailer } from './mailer.ts';
import type { OAuth2Services } from './oauth2/oauth2Services.ts';
import type { TokenCodec } from './tokenCodec.ts';

/** What the identity routes work with besides the store and the read models. */
export type IdentityServices = {
  /** This process's auth state, kept current by the auth live model. */
  readonly state: AuthState;
  /** Whether `state` may be behind the log; see settleAuthChange for what routes tell it. */
  readonly freshness: AuthFreshness;
  readonly passwords: PasswordHasher;
  /** Failed logins for emails without an account (per process; see UnknownAccountLockout). */
  readonly unknownAccounts: UnknownAccountLockout;
  /** Signs and reads session/reset JWTs; null when SERVICE_SECRET is unset (auth off). */
  readonly tokens: TokenCodec | null;
  /** null when SMTP is not configured. */
  readonly mailer: Mailer | null;
  /** Seals secret values (AES-256-GCM under keys derived from SERVICE_SECRET). */
  readonly keyring: SecretKeyring;
  readonly now: () => Date;
  /** Present when OAuth2 providers are configured. */
  readonly oauth2?: OAuth2Services;
};
