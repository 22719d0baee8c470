import { randomBytes } from 'node:crypto';
import type { SessionTokens } from '../../domain/identity/events.ts';

export const newTokenId = (): string => randomBytes(16).toString('hex');

const plusMinutes = (now: Date, minutes: number): string => new Date(now.getTime() + minutes * 60_000).toISOString();

/** Fresh ids and expiries for an access/refresh pair; the command records them, cookies carry their JWTs. */
export const newSessionTokens = (now: Date, expiryMinutes: { readonly access: number; readonly refresh: number }): SessionTokens => ({
  accessTokenId: newTokenId(),
  accessExpiresAt: plusMinutes(now, expiryMinutes.access),
  refreshTokenId: newTokenId(),
  refreshExpiresAt: plusMinutes(now, expiryMinutes.refresh),
});
