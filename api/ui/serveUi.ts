import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type Koa from 'koa';
import type { AppDeps } from '../appDeps.ts';
import { HttpError } from '../http/httpError.ts';
import type { RouteDef } from '../http/route.ts';
import { SECURITY_HEADERS } from './contentSecurityPolicy.ts';
import { SPA_PATHS } from './spaPaths.ts';
import { uiConfigFor } from './uiConfig.ts';
import type { UiOptions } from './uiOptions.ts';
import { autoLoginTarget } from '../identity/oauth2/autoLoginTarget.ts';

/** Hashed file names never change content: the browser may keep them for a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.html', '.map', '.txt']);

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// No inline style: the page is sent with the same Content-Security-Policy as the app.
const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Loupe</title>
<p>The web UI is not built. Run <code>npm run build:ui</code> (or <code>npm start</code>, which builds it) and reload.</p>`;

/** index.html with the runtime config, re-read after a rebuild; a page before `npm run build:ui`. */
const indexPage = (deps: AppDeps, options: UiOptions) => {
  const rootPath = deps.settings.rootPath;
  const indexPath = join(options.distDir, 'index.html');
  let template: { mtimeMs: number; html: string } | null = null;

  /** index.html as built, with its relative links made absolute under the root path. Re-read after a rebuild. */
  const indexTemplate = (): string | null => {
    const stat = statSync(indexPath, { throwIfNoEntry: false });
    if (stat === undefined) return null;
    if (template === null || template.mtimeMs !== stat.mtimeMs) {
      const html = readFileSync(indexPath, 'utf8').replace(/(src|href)="\.\//g, `$1="${rootPath}/`);
      template = { mtimeMs: stat.mtimeMs, html };
    }
    return template.html;
  };

  const serveIndex = async (ctx: Koa.Context) => {
    const html = indexTemplate();
    ctx.set(SECURITY_HEADERS);
    ctx.set('cache-control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    if (html === null) {
      ctx.status = 503;
      ctx.body = NOT_BUILT;
      return;
    }
    const config = JSON.stringify(await uiConfigFor(ctx, deps, options));
    ctx.body = html.replace('<meta name="loupe-config" content="" />', `<meta name="loupe-config" content="${escapeAttribute(config)}" />`);
  };
  return serveIndex;
};

/**
 * A browser asking for a path that is no page of the app (`/nope/nothing`, a mistyped link) gets
 * the app with status 404, whose router shows its not-found page, instead of the API's JSON. Only
 * a GET nothing answered, under the root path, outside the API, from a client that prefers HTML
 * (a browser's navigation): API clients keep the JSON 404. Mounted after every route.
 */
export const uiNotFound = (deps: AppDeps, options: UiOptions): Koa.Middleware => {
  const serveIndex = indexPage(deps, options);
  const rootPath = deps.settings.rootPath;
  const API = /^\/(v1|graphql|auth|healthz|metrics|assets)(\/|$)/;
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || ctx.status !== 404 || ctx.body !== undefined) return;
    if (rootPath && ctx.path !== rootPath && !ctx.path.startsWith(`${rootPath}/`)) return;
    const local = ctx.path.slice(rootPath.length) || '/';
    if (API.test(local) || ctx.accepts('json', 'html') !== 'html') return;
    await serveIndex(ctx);
    if ((ctx.status as number) === 200) ctx.status = 404; // not the 503 of an unbuilt UI
  };
};

/**
 * The single-page app: index.html for the app's paths (with the runtime config in a meta tag and
 * asset links under the root path), hashed assets with immutable caching, a config endpoint for
 * `npm run dev:ui`. All public, like /healthz: the page itself holds no data; the API it calls is
 * where access is decided.
 */
export const uiRoutes = (deps: AppDeps, options: UiOptions): RouteDef[] => {
  const rootPath = deps.settings.rootPath;
  const serveIndex = indexPage(deps, options);
  const gzipped = new Map<string, Buffer>();

  /** The login page, unless an auto-login provider takes the browser straight to its sign-in. */
  const loginPage = async (ctx: Koa.Context) => {
    const target = autoLoginTarget(deps, ctx);
    if (target === null) return serveIndex(ctx);
    ctx.redirect(target);
    ctx.status = 307;
  };

  /** A file of the build, never outside it. */
  const serveFile = (ctx: Koa.Context, relative: string, cache: string) => {
    const path = normalize(join(options.distDir, relative));
    if (!path.startsWith(options.distDir + sep) || !existsSync(path) || !statSync(path).isFile()) {
      throw new HttpError(404, 'route_not_found', `Not Found: ${ctx.method} ${ctx.path}`);
    }
    const extension = extname(path);
    ctx.type = extension;
    ctx.set('cache-control', cache);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.vary('accept-encoding');
    if (COMPRESSIBLE.has(extension) && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      let body = gzipped.get(path);
      if (body === undefined) {
        body = gzipSync(readFileSync(path), { level: 9 });
        gzipped.set(path, body);
      }
      ctx.set('content-encoding', 'gzip');
      ctx.body = body;
      return;
    }
    ctx.body = createReadStream(path);
  };

  const localPath = (ctx: Koa.Context): string => (rootPath && ctx.path.startsWith(rootPath) ? ctx.path.slice(rootPath.length) : ctx.path);

  return [
    {
      method: 'GET',
      path: '/ui-config.json',
      permission: 'public',
      handler: async (ctx) => {
        ctx.set('cache-control', 'no-store');
        ctx.body = await uiConfigFor(ctx, deps, options);
      },
    },
    { method: 'GET', path: '/assets/*file', permission: 'public', handler: (ctx) => serveFile(ctx, localPath(ctx).slice(1), IMMUTABLE) },
    { method: 'GET', path: '/favicon.svg', permission: 'public', handler: (ctx) => serveFile(ctx, 'favicon.svg', 'public, max-age=86400') },
    ...SPA_PATHS.map(
      (path): RouteDef => ({ method: 'GET', path, permission: 'public', handler: path === '/login' ? loginPage : serveIndex }),
    ),
  ];
};
