import { apiUrl, http } from '../api/http.ts';

/** POST /auth/ldap/login: sets the session cookies (204) or answers 401 / 429 / 503 with its reason. */
export const logInWithLdap = (username: string, password: string, signal?: AbortSignal): Promise<void> =>
  http('/auth/ldap/login', { method: 'POST', json: { username, password }, noRefresh: true, signal });

/** Where a provider button sends the browser: the server redirects on to the provider and back to `returnTo`. */
export const providerLoginUrl = (name: string, returnTo: string): string =>
  apiUrl(`/oauth2/${encodeURIComponent(name)}/login?returnUrl=${encodeURIComponent(returnTo)}`);

/**
 * Why a provider login came back to the login page (`?error=<code>`; the server's table is
 * api/identity/oauth2/oauth2Errors.ts). Unknown codes show nothing, so a crafted link cannot put
 * words on the page.
 */
const MESSAGES: Readonly<Record<string, string>> = {
  unknown_idp: 'Unknown sign-in provider.',
  provider_unavailable: 'The sign-in provider could not be reached. Please try again later.',
  auth_failed: 'Sign-in failed. Please try again.',
  invalid_state: 'The sign-in took too long or was started elsewhere. Please try again.',
  unsafe_return_url: 'The sign-in link points outside this site.',
  oauth_error: 'The sign-in provider refused the request.',
  no_oidc_support: 'The sign-in provider does not support OpenID Connect.',
  missing_email_scope: 'The sign-in provider did not give a valid email address (missing or invalid email claim).',
  email_in_use: 'An account with this email already exists and does not sign in through this provider.',
  sign_in_not_allowed: 'Sign-in not allowed: ask an administrator to create your account first.',
  not_in_allowed_group: 'Sign-in refused: you are not in a group allowed to use this application.',
  role_denied: 'Access denied: the sign-in provider gives you no valid role for this application.',
};

export const loginErrorMessage = (code: unknown): string | null =>
  typeof code === 'string' && Object.hasOwn(MESSAGES, code) ? MESSAGES[code]! : null;
