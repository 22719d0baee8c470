import type Koa from 'koa';

// Anonymous machine-to-machine surfaces that browsers do not drive with cookies.
const EXEMPT = (path: string): boolean =>
  path.startsWith('/.well-known/') || ['/oauth2/token', '/oauth2/register', '/oauth2/revoke'].includes(path);

const hostnameOf = (value: string): string | null => {
  try {
    return new URL(value).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
};

/**
 * `SERVICE_CSRF_TRUSTED_ORIGINS`: when set, every request whose Origin or Referer names a host
 * outside the list is refused with 401 (absent headers pass; scheme and port are not compared, as
 * in the reference). Runs before authentication, on every path and method. Off when unset.
 */
export const csrfMiddleware = (trustedOrigins: readonly string[], rootPath: string): Koa.Middleware | null => {
  if (trustedOrigins.length === 0) return null;
  const trusted = new Set(trustedOrigins.map(hostnameOf).filter((h): h is string => h !== null));
  return async (ctx, next) => {
    const path = rootPath && ctx.path.startsWith(rootPath) ? ctx.path.slice(rootPath.length) || '/' : ctx.path;
    if (!EXEMPT(path)) {
      for (const header of ['origin', 'referer'] as const) {
        const value = ctx.get(header);
        if (value === '') continue;
        const host = hostnameOf(value);
        if (host === null || !trusted.has(host)) {
          ctx.status = 401;
          ctx.body = { detail: `untrusted ${header}`, code: `untrusted_${header}` };
          return;
        }
      }
    }
    await next();
  };
};
