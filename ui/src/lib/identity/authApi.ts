import { http } from '../api/http.ts';

/** POST /auth/login: sets the session cookies (204) or answers 401 / 429 with its reason. */
export const logIn = (email: string, password: string, signal?: AbortSignal): Promise<void> =>
  http('/auth/login', { method: 'POST', json: { email, password }, noRefresh: true, signal });

/**
 * The sign-in buttons say the server is slow after 10 s (a password hash or a directory bind takes
 * well under a second, but a loaded server can take long and still answer) and give up after a
 * minute, with a message instead of "Signing in…" for ever.
 */
export const SIGN_IN_SLOW_MS = 10_000;
export const SIGN_IN_DEADLINE_MS = 60_000;
export const SIGN_IN_TIMED_OUT = 'The server did not answer within a minute. It may be overloaded or unreachable: try again in a moment.';

/** PATCH /v1/user: a new password ends every session, this one too; sign in again with it. */
export const changeOwnPassword = (currentPassword: string, newPassword: string): Promise<void> =>
  http('/v1/user', { method: 'PATCH', json: { current_password: currentPassword, new_password: newPassword } });

export const requestPasswordReset = (email: string): Promise<void> =>
  http('/auth/password-reset-email', { method: 'POST', json: { email }, noRefresh: true });

export const resetPassword = (token: string, password: string): Promise<void> =>
  http('/auth/password-reset', { method: 'POST', json: { token, password }, noRefresh: true });

/**
 * The password just typed on the login page, kept in memory only (never in history state or
 * storage) so the forced change after the default admin's first login does not ask for it again.
 */
let justTyped: { email: string; password: string } | null = null;
export const rememberLogin = (value: { email: string; password: string } | null) => {
  justTyped = value;
};
export const recalledLogin = () => justTyped;

/** Only a path of this app: `returnTo` comes from the URL, and must not send anyone elsewhere. */
export const safeReturnTo = (value: unknown): string => {
  const path = typeof value === 'string' ? value : '';
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\') ? path : '/projects';
};
