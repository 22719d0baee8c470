import type { AuthProblem } from './createAuthenticator.ts';

/** What a 401 says, by what was wrong with the credential: a newcomer without one is told how to send one. */
export const UNAUTHENTICATED = {
  missing: {
    code: 'unauthenticated',
    message:
      'No credentials: send an API key as the header "Authorization: Bearer <key>" (OTLP exporters: ' +
      'OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20<key>; create a key under Settings › API keys), or sign in',
  },
  invalid: { code: 'unauthenticated', message: 'Invalid token' },
  expired: { code: 'expired_token', message: 'Expired token' },
} as const satisfies Record<AuthProblem, { code: string; message: string }>;

/** The answer for a request nobody was identified by (no problem recorded: an invalid credential). */
export const unauthenticated = (problem: AuthProblem | null | undefined): { readonly code: string; readonly message: string } =>
  UNAUTHENTICATED[problem ?? 'invalid'];
