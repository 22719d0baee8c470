/**
 * A sign-in (password, LDAP, OAuth2, refresh) is useless until its session is known, so it waits
 * this long for a lagging projection (a loaded machine) rather than the usual 5 s and a 503 the
 * person would have to retry by hand.
 */
export const SIGN_IN_SETTLE_MS = 30_000;
