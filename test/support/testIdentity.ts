import type { AuthSettings } from '../../api/identity/authSettings.ts';
import type { IdentityServices } from '../../api/identity/identityServices.ts';
import { createAuthState } from '../../projections/identity/authState.ts';
import { createAuthFreshness } from '../../projections/identity/authFreshness.ts';
import { DEFAULT_LOCKOUT } from '../../domain/identity/lockout.ts';
import { DEFAULT_PASSWORD_RULE } from '../../domain/identity/passwordPolicy.ts';
import { createPasswordHasher } from '../../domain/identity/passwords.ts';
import { createUnknownAccountLockout } from '../../domain/identity/unknownAccountLockout.ts';
import { secretKeyring } from '../../ops/secretKeyring.ts';

/** argon2id cost for tests (docs/reference/stack-notes.md §8): fast, still a real argon2id hash. */
export const TEST_PASSWORD_COST = { memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

/** Auth settings as loadConfig gives them with nothing set, plus overrides. */
export const testAuthSettings = (overrides: Partial<AuthSettings> = {}): AuthSettings => ({
  enabled: false,
  secureCookies: false,
  csrfTrustedOrigins: [],
  disableBasicAuth: false,
  passwordRule: DEFAULT_PASSWORD_RULE,
  lockout: DEFAULT_LOCKOUT,
  tokenExpiryMinutes: { access: 10, refresh: 7 * 24 * 60, passwordReset: 15 },
  rootUrl: null,
  trustProxy: false,
  ...overrides,
});

/** Identity services for app tests that do not exercise identity: empty state, no tokens, no mail. */
export const testIdentityServices = (): IdentityServices => ({
  state: createAuthState(),
  freshness: createAuthFreshness(),
  unknownAccounts: createUnknownAccountLockout(),
  passwords: createPasswordHasher(TEST_PASSWORD_COST),
  tokens: null,
  mailer: null,
  keyring: secretKeyring(null),
  now: () => new Date(),
});
