import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { AuthState, Resolution } from '../../domain/access/authState.ts';
import { adminSecretPrincipal, resolveAccessToken, resolveApiKey } from '../../domain/access/authState.ts';
import type { Principal } from '../../domain/access/principal.ts';
import { parseApiKey } from '../../domain/apikeys/apiKeyValue.ts';
import { ACCESS_COOKIE, readCookie } from './authCookies.ts';
import type { TokenCodec } from './tokenCodec.ts';

export type AuthProblem = 'missing' | 'invalid' | 'expired';

export type Authentication = { readonly principal: Principal | null; readonly problem: AuthProblem | null };

export type Authenticator = {
  /** Koa requests: the Authorization header when present (cookies are then ignored), else the access cookie. */
  readonly authenticate: (ctx: Koa.Context) => Promise<Principal | null>;
  /** A raw `Authorization` value (HTTP header or gRPC metadata). */
  readonly fromAuthorization: (authorization: string | null) => Promise<Authentication>;
};

export type AuthenticatorOptions = {
  readonly enabled: boolean;
  readonly adminSecret: string | null;
  readonly tokens: TokenCodec | null;
  readonly state: AuthState;
  readonly now: () => Date;
  /**
   * Brings this process's state up to the log head. Called once when a well-formed credential is
   * unknown here: it may have been issued a moment ago by another process.
   */
  readonly catchUp: () => Promise<void>;
};

const ANONYMOUS: Authentication = { principal: { kind: 'anonymous' }, problem: null };
const MISSING: Authentication = { principal: null, problem: 'missing' };
const INVALID: Authentication = { principal: null, problem: 'invalid' };

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equal-length digests compared in constant time, so the comparison leaks neither length nor prefix. */
const sameSecret = (presented: string, secret: string): boolean => timingSafeEqual(digest(presented), digest(secret));

const fromResolution = (resolution: Resolution<Principal>): Authentication =>
  resolution.status === 'valid' ? { principal: resolution.value, problem: null } : { principal: null, problem: resolution.status };

export const createAuthenticator = (options: AuthenticatorOptions): Authenticator => {
  const { state } = options;
  const now = () => options.now().toISOString();

  /** Resolve with `lookup`; when `known` says this process has never heard of it, catch up once and retry. */
  const withCatchUp = async (lookup: () => Resolution<Principal>, known: () => boolean): Promise<Authentication> => {
    if (!known()) await options.catchUp();
    return fromResolution(lookup());
  };

  const fromAccessToken = async (token: string): Promise<Authentication> => {
    const claims = options.tokens === null ? null : await options.tokens.read(token);
    // Refresh and reset tokens never authenticate a request.
    if (claims === null || claims.kind !== 'AccessToken') return INVALID;
    return withCatchUp(() => resolveAccessToken(state, claims.id, now()), () => state.accessTokens.has(claims.id));
  };

  /** A bearer may be the admin secret, an API key or an access token; a cookie only the latter. */
  const fromBearer = async (token: string): Promise<Authentication> => {
    if (options.adminSecret !== null && sameSecret(token, options.adminSecret)) {
      const principal = adminSecretPrincipal(state);
      return principal === null ? INVALID : { principal, problem: null };
    }
    const apiKey = parseApiKey(token);
    if (apiKey !== null) {
      return withCatchUp(() => resolveApiKey(state, token, now()), () => state.apiKeys.has(apiKey.keyId));
    }
    return fromAccessToken(token);
  };

  const fromAuthorization = async (authorization: string | null): Promise<Authentication> => {
    if (!options.enabled) return ANONYMOUS;
    if (authorization === null) return MISSING;
    const space = authorization.indexOf(' ');
    const scheme = space < 0 ? authorization : authorization.slice(0, space);
    const token = space < 0 ? '' : authorization.slice(space + 1).trim();
    if (scheme.toLowerCase() !== 'bearer' || token === '') return INVALID;
    return fromBearer(token);
  };

  return {
    fromAuthorization,
    authenticate: async (ctx) => {
      let result: Authentication;
      if (!options.enabled) result = ANONYMOUS;
      else if (ctx.get('authorization') !== '') result = await fromAuthorization(ctx.get('authorization'));
      else {
        const cookie = readCookie(ctx, ACCESS_COOKIE);
        result = cookie === null ? MISSING : await fromAccessToken(cookie);
      }
      ctx.state.authProblem = result.problem;
      return result.principal;
    },
  };
};
