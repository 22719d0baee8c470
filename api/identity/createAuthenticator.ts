import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { AuthState, Resolution } from '../../projections/identity/authState.ts';
import { adminSecretPrincipal, resolveAccessToken, resolveApiKey } from '../../projections/identity/authState.ts';
import { confirmAccessToken, confirmApiKey } from '../../domain/access/confirmCredential.ts';
import type { Principal } from '../../domain/access/principal.ts';
import type { ApiKeyState } from '../../domain/apiKeys/apiKeyDecider.ts';
import { apiKeyDecider } from '../../domain/apiKeys/apiKeyDecider.ts';
import { apiKeyStream } from '../../domain/apiKeys/apiKeyStream.ts';
import { parseApiKey } from '../../domain/apiKeys/apiKeyValue.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import type { UserState } from '../../domain/identity/userState.ts';
import { loadState } from '../../domain/readAndFold.ts';
import type { AuthFreshness } from '../../projections/identity/authFreshness.ts';
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
   * Brings this process's state up to the log head. Called once when an access token is unknown
   * here: it may have been issued a moment ago by another process. (An unknown API key needs no
   * wait: its own stream is read instead.)
   */
  readonly catchUp: () => Promise<void>;
  /** Says when `state` may be behind the log; credentials are then judged on their own streams. */
  readonly freshness: AuthFreshness;
  /** Where those streams are read. */
  readonly store: EventStore;
};

/**
 * Stream states read for confirmations are reused this long (and never across a change this
 * process made): a busy client does not read its user's stream on every request, and another
 * process's revocation still takes effect within it.
 */
const CONFIRMED_FOR_MS = 250;

const ANONYMOUS: Authentication = { principal: { kind: 'anonymous' }, problem: null };
const MISSING: Authentication = { principal: null, problem: 'missing' };
const INVALID: Authentication = { principal: null, problem: 'invalid' };

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equal-length digests compared in constant time, so the comparison leaks neither length nor prefix. */
const sameSecret = (presented: string, secret: string): boolean => timingSafeEqual(digest(presented), digest(secret));

const fromResolution = (resolution: Resolution<Principal>): Authentication =>
  resolution.status === 'valid' ? { principal: resolution.value, problem: null } : { principal: null, problem: resolution.status };

export const createAuthenticator = (options: AuthenticatorOptions): Authenticator => {
  const { state, freshness, store } = options;
  const now = () => options.now().toISOString();

  const cache = new Map<string, { readonly at: number; readonly generation: number; readonly value: Promise<unknown> }>();
  const cached = <T>(stream: string, load: () => Promise<T>): Promise<T> => {
    const at = Date.now();
    const hit = cache.get(stream);
    if (hit !== undefined && hit.generation === freshness.generation() && at - hit.at < CONFIRMED_FOR_MS) return hit.value as Promise<T>;
    if (cache.size > 10_000) cache.clear();
    const value = load();
    cache.set(stream, { at, generation: freshness.generation(), value });
    value.catch(() => cache.delete(stream));
    return value;
  };
  const userOf = (userId: string): Promise<UserState> => cached(`user:${userId}`, () => loadUser(store, userId));
  const keyOf = (keyId: string): Promise<ApiKeyState> =>
    cached(`apikey:${keyId}`, async () => loadState(store, apiKeyStream(keyId), apiKeyDecider));

  /** An API key judged on its own stream and its acting user's: never behind, whoever revoked it. */
  const confirmKey = async (keyId: string, presented: string): Promise<Authentication> => {
    const key = await keyOf(keyId);
    const actingUserId = key.kind === 'system' ? state.systemUserId : key.ownerUserId;
    const actingUser = key.status !== 'active' || actingUserId === null ? null : await userOf(actingUserId);
    return fromResolution(confirmApiKey(key, actingUser, keyId, presented, now()));
  };

  /** Resolve with `lookup`; when `known` says this process has never heard of it, catch up once and retry. */
  const withCatchUp = async (lookup: () => Resolution<Principal>, known: () => boolean): Promise<Authentication> => {
    if (!known()) await options.catchUp();
    return fromResolution(lookup());
  };

  const fromAccessToken = async (token: string): Promise<Authentication> => {
    const claims = options.tokens === null ? null : await options.tokens.read(token);
    // Refresh and reset tokens never authenticate a request.
    if (claims === null || claims.kind !== 'AccessToken') return INVALID;
    const authentication = await withCatchUp(
      () => resolveAccessToken(state, claims.id, now()),
      () => state.accessTokens.has(claims.id),
    );
    // The state may be behind a logout, password change or deletion: ask the user's stream. (A
    // token the state does not know has no known owner; it stays refused.)
    const owner = state.accessTokens.get(claims.id)?.userId;
    if (owner === undefined || !(await freshness.behind())) return authentication;
    return fromResolution(confirmAccessToken(await userOf(owner), claims.id, now()));
  };

  /** A bearer may be the admin secret, an API key or an access token; a cookie only the latter. */
  const fromBearer = async (token: string): Promise<Authentication> => {
    if (options.adminSecret !== null && sameSecret(token, options.adminSecret)) {
      const principal = adminSecretPrincipal(state);
      return principal === null ? INVALID : { principal, problem: null };
    }
    const apiKey = parseApiKey(token);
    if (apiKey !== null) {
      // A key this state does not know yet (issued by another process a moment ago), or any key
      // while the state may be behind a revocation: its own stream decides, at once.
      if (!state.apiKeys.has(apiKey.keyId) || (await freshness.behind())) return confirmKey(apiKey.keyId, token);
      return fromResolution(resolveApiKey(state, token, now()));
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
