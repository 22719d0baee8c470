import type Koa from 'koa';

export const ACCESS_COOKIE = 'loupe-access-token';
export const REFRESH_COOKIE = 'loupe-refresh-token';

export type CookieOptions = { readonly path: string; readonly secure: boolean };

/** The cookies live under the root path, so two deployments on one host do not share them. */
export const cookieOptions = (rootPath: string, secure: boolean): CookieOptions => ({ path: rootPath || '/', secure });

// Written by hand rather than with ctx.cookies: Koa refuses `Secure` cookies on a plain-HTTP
// request, but behind a TLS-terminating proxy without X-Forwarded-Proto the request is plain HTTP.
const serialize = (name: string, value: string, maxAgeSeconds: number, options: CookieOptions, sameSite: 'Strict' | 'Lax'): string =>
  [
    `${name}=${value}`,
    `Max-Age=${maxAgeSeconds}`,
    `Path=${options.path}`,
    `SameSite=${sameSite}`,
    'HttpOnly',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');

export const setSessionCookies = (
  ctx: Koa.Context,
  options: CookieOptions,
  tokens: { readonly access: string; readonly accessSeconds: number; readonly refresh: string; readonly refreshSeconds: number },
): void => {
  ctx.append('Set-Cookie', serialize(ACCESS_COOKIE, tokens.access, tokens.accessSeconds, options, 'Strict'));
  ctx.append('Set-Cookie', serialize(REFRESH_COOKIE, tokens.refresh, tokens.refreshSeconds, options, 'Strict'));
};

export const clearSessionCookies = (ctx: Koa.Context, options: CookieOptions): void => {
  for (const cookie of clearedSessionCookies(options)) ctx.append('Set-Cookie', cookie);
};

/** The `Set-Cookie` values that end this browser's session, for an answer's headers. */
export const clearedSessionCookies = (options: CookieOptions): string[] =>
  [ACCESS_COOKIE, REFRESH_COOKIE].map((name) => serialize(name, '', 0, options, 'Lax'));

/** A cookie's value from the request, or null. */
export const readCookie = (ctx: Koa.Context, name: string): string | null => {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
};
