import type { AuthState } from '../../domain/access/authState.ts';
import type { PasswordHasher } from '../../domain/identity/passwords.ts';
import type { SecretKeyring } from '../../domain/secrets/crypto.ts';
import type { Mailer } from './mailer.ts';
import type { TokenCodec } from './tokenCodec.ts';

/** What the identity routes work with besides the store and the read models. */
export type IdentityServices = {
  /** This process's auth state, kept current by the auth live model. */
  readonly state: AuthState;
  readonly passwords: PasswordHasher;
  /** Signs and reads session/reset JWTs; null when SERVICE_SECRET is unset (auth off). */
  readonly tokens: TokenCodec | null;
  /** null when SMTP is not configured. */
  readonly mailer: Mailer | null;
  /** Seals secret values (AES-256-GCM under keys derived from SERVICE_SECRET). */
  readonly keyring: SecretKeyring;
  readonly now: () => Date;
};
