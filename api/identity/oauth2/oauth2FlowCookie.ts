import { hkdfSync } from 'node:crypto';
import type Koa from 'koa';
import { jwtVerify, SignJWT } from 'jose';
import { readCookie } from '../authCookies.ts';

export const FLOW_COOKIE = 'loupe-oauth2-flow';
const FLOW_SECONDS = 15 * 60;

/** What the callback must find again: the values sent to the provider for this one login. */
export type OAuth2Flow = {
  readonly idp: string;
  readonly state: string;
  readonly nonce: string;
  /** PKCE code verifier; null without PKCE. */
  readonly verifier: string | null;
  /** A relative path to land on after the login; null = the root. */
  readonly returnUrl: string | null;
  readonly redirectUri: string;
};

export type FlowCookieCodec = {
  readonly seal: (flow: OAuth2Flow) => Promise<string>;
  /** The flow, or null for a missing, forged, expired or other-provider cookie. */
  readonly open: (token: string | null, idp: string) => Promise<OAuth2Flow | null>;
};

/**
 * The flow lives in one short-lived HttpOnly cookie, an HS256 JWT under a key derived from
 * SERVICE_SECRET for this purpose only (so it can never pass for a session token and the
 * other way round). Nothing is kept on the server between the two requests of a login.
 */
export const createFlowCookieCodec = (secret: string): FlowCookieCodec => {
  const key = new Uint8Array(hkdfSync('sha256', secret, 'loupe', 'oauth2 login flow cookie', 32));
  return {
    seal: (flow) =>
      new SignJWT({ ...flow }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setExpirationTime(`${FLOW_SECONDS}s`).sign(key),
    open: async (token, idp) => {
      if (token === null) return null;
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        const p = payload as Partial<OAuth2Flow>;
        if (p.idp !== idp || typeof p.state !== 'string' || typeof p.nonce !== 'string' || typeof p.redirectUri !== 'string') return null;
        return {
          idp,
          state: p.state,
          nonce: p.nonce,
          verifier: typeof p.verifier === 'string' ? p.verifier : null,
          returnUrl: typeof p.returnUrl === 'string' ? p.returnUrl : null,
          redirectUri: p.redirectUri,
        };
      } catch {
        return null;
      }
    },
  };
};

// Lax, not Strict: the callback arrives as a top-level navigation from the provider's site.
const serialize = (value: string, maxAge: number, path: string, secure: boolean): string =>
  [`${FLOW_COOKIE}=${value}`, `Max-Age=${maxAge}`, `Path=${path}`, 'SameSite=Lax', 'HttpOnly', ...(secure ? ['Secure'] : [])].join('; ');

export const setFlowCookie = (ctx: Koa.Context, value: string, path: string, secure: boolean): void => {
  ctx.append('Set-Cookie', serialize(value, FLOW_SECONDS, path, secure));
};

export const clearFlowCookie = (ctx: Koa.Context, path: string, secure: boolean): void => {
  ctx.append('Set-Cookie', serialize('', 0, path, secure));
};

export const readFlowCookie = (ctx: Koa.Context): string | null => readCookie(ctx, FLOW_COOKIE);
