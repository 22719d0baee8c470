import type { CreateUser, LockoutSettings } from '../../../domain/identity/commands.ts';
import type { SessionTokens, UserCreated, UserEvent } from '../../../domain/identity/events.ts';

export const HASH_A = '$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaEFoYXNoQWhhc2hB';
export const HASH_B = '$argon2id$v=19$m=1024,t=1,p=1$b3RoZXJzYWx0MTI$aGFzaEJoYXNoQmhhc2hC';

/** `t(0)` is the base time; `t(90)` is 90 seconds later. */
export const t = (seconds: number): string => new Date(Date.UTC(2025, 0, 1, 12, 0, 0) + seconds * 1000).toISOString();

export const LOCKOUT: LockoutSettings = { enabled: true, maxAttempts: 5 };

export const tokens = (n: number, validForSeconds = 3600, from = 0): SessionTokens => ({
  accessTokenId: `access-${n}`,
  accessExpiresAt: t(from + 600),
  refreshTokenId: `refresh-${n}`,
  refreshExpiresAt: t(from + validForSeconds),
});

export const createAlice = (change: Partial<CreateUser> = {}): CreateUser => ({
  type: 'CreateUser',
  userId: 'u1',
  username: 'alice',
  email: 'alice@example.com',
  role: 'MEMBER',
  authMethod: 'LOCAL',
  passwordHash: HASH_A,
  passwordNeedsReset: false,
  now: t(0),
  ...change,
});

export const aliceCreated = (change: Partial<UserCreated['data']> = {}): UserCreated => ({
  type: 'UserCreated',
  data: {
    userId: 'u1',
    username: 'alice',
    email: 'alice@example.com',
    role: 'MEMBER',
    authMethod: 'LOCAL',
    passwordHash: HASH_A,
    passwordNeedsReset: false,
    builtIn: null,
    oauth2ClientId: null,
    oauth2UserId: null,
    ldapUniqueId: null,
    at: t(0),
    ...change,
  },
});

export const failed = (at: number): UserEvent => ({ type: 'LoginFailed', data: { userId: 'u1', at: t(at) } });

export const sessionStarted = (n: number, at = 0, validForSeconds = 3600): UserEvent => ({
  type: 'SessionStarted',
  data: { userId: 'u1', via: 'password', ...tokens(n, validForSeconds, at), at: t(at) },
});
