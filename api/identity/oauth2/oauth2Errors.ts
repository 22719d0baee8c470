/**
 * Why an external login ended on the login page (`/login?error=<code>`). The page shows the
 * message for a known code and nothing for any other, so a crafted link cannot put text there.
 * The UI keeps the same table (ui/src/lib/identity/externalLogin.ts).
 */
export const AUTH_ERROR_MESSAGES = {
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
} as const;

export type OAuth2ErrorCode = keyof typeof AUTH_ERROR_MESSAGES;
