import type Koa from 'koa';
import * as client from 'openid-client';
import { signInExternally } from '../../../domain/identity/signInExternally.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import type { RouteDef } from '../../http/route.ts';
import { readYourWrites } from '../../http/readYourWrites.ts';
import { SIGN_IN_SETTLE_MS } from '../signInSettleMs.ts';
import { newSessionTokens } from '../newSessionTokens.ts';
import { sendSessionCookies } from '../sendSessionCookies.ts';
import type { OAuth2ErrorCode } from './oauth2Errors.ts';
import { type Claims, decideRole, emailOf, inAllowedGroup, needsUserinfo } from './oauth2Claims.ts';
import { clearFlowCookie, readFlowCookie, setFlowCookie } from './oauth2FlowCookie.ts';
import type { OAuth2ProviderSettings } from './oauth2Settings.ts';

const IDP_NAME = /^[a-z0-9_]+$/;

/** Where to land after the login: a path on this server only (`/`, `/projects/...`), never `//host` or a URL. */
const safeReturnUrl = (value: unknown): string | null | undefined => {
  if (typeof value !== 'string' || value === '') return null;
  return /^\/($|\w)/.test(value) ? value : undefined;
};

/** The browser-facing base: SERVICE_ROOT_URL, else the host the browser used (the provider only accepts registered redirect URIs). */
const baseUrl = (ctx: Koa.Context, deps: AppDeps): string =>
  deps.settings.auth.rootUrl ?? `${ctx.protocol}://${ctx.host}${deps.settings.rootPath}`;

const cookiePath = (deps: AppDeps) => deps.settings.rootPath || '/';

/** Every failure ends on the login page, which shows the message for `code`; the flow cookie is dropped. */
const failTo = (ctx: Koa.Context, deps: AppDeps, code: OAuth2ErrorCode): void => {
  clearFlowCookie(ctx, cookiePath(deps), deps.settings.auth.secureCookies);
  ctx.redirect(`${deps.settings.rootPath}/login?error=${code}`);
  ctx.status = 307;
};

const providerOf = (deps: AppDeps, ctx: Koa.Context): OAuth2ProviderSettings | null => {
  const idp = String(ctx.params.idp ?? '');
  if (!IDP_NAME.test(idp)) return null;
  return deps.settings.auth.oauth2Providers?.find((p) => p.name === idp) ?? null;
};

const login = (deps: AppDeps) => async (ctx: Koa.Context) => {
  const provider = providerOf(deps, ctx);
  const services = deps.identity.oauth2;
  if (provider === null || services === undefined || services.flowCookies === null) return failTo(ctx, deps, 'unknown_idp');
  const returnUrl = safeReturnUrl(ctx.query.returnUrl);
  if (returnUrl === undefined) return failTo(ctx, deps, 'unsafe_return_url');
  let configuration: client.Configuration;
  try {
    configuration = await services.clients.configuration(provider);
  } catch (error) {
    deps.logger.warn({ idp: provider.name, err: String(error) }, 'OAuth2 provider discovery failed');
    return failTo(ctx, deps, 'provider_unavailable');
  }
  const redirectUri = `${baseUrl(ctx, deps)}/oauth2/${provider.name}/tokens`;
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = provider.usePkce ? client.randomPKCECodeVerifier() : null;
  const parameters: Record<string, string> = { redirect_uri: redirectUri, scope: provider.scopes, state, nonce };
  if (verifier !== null) {
    parameters.code_challenge = await client.calculatePKCECodeChallenge(verifier);
    parameters.code_challenge_method = 'S256';
  }
  const sealed = await services.flowCookies.seal({ idp: provider.name, state, nonce, verifier, returnUrl, redirectUri });
  setFlowCookie(ctx, sealed, cookiePath(deps), deps.settings.auth.secureCookies);
  ctx.redirect(client.buildAuthorizationUrl(configuration, parameters).href);
};

/**
 * Whether the token endpoint answered without an ID token: a plain OAuth2 server, or one that did
 * not grant `openid`. openid-client refuses such a response (we always expect one) with an error
 * whose cause carries the response body.
 */
const lacksIdToken = (error: unknown): boolean => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const body = (e.cause as { body?: unknown } | undefined)?.body;
    if (typeof body === 'object' && body !== null && /id_token/.test(e.message)) {
      return typeof (body as { id_token?: unknown }).id_token !== 'string';
    }
  }
  return false;
};

/** ID token claims, completed from userinfo when they lack what the paths need; the ID token wins. */
const claimsOf = async (
  configuration: client.Configuration,
  provider: OAuth2ProviderSettings,
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
) => {
  const idClaims = (tokens.claims() ?? {}) as Claims;
  if (!needsUserinfo(provider, idClaims) || typeof idClaims.sub !== 'string') return idClaims;
  try {
    const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
    return { ...userinfo, ...idClaims } as Claims;
  } catch {
    return idClaims;
  }
};

const usernameOf = (claims: Claims, email: string): string => {
  const name = typeof claims.name === 'string' ? claims.name.trim() : '';
  return name !== '' ? name : email.split('@')[0]!;
};

const callback = (deps: AppDeps) => async (ctx: Koa.Context) => {
  const provider = providerOf(deps, ctx);
  const services = deps.identity.oauth2;
  if (provider === null || services === undefined || services.flowCookies === null) return failTo(ctx, deps, 'unknown_idp');
  const flow = await services.flowCookies.open(readFlowCookie(ctx), provider.name);
  const query = ctx.query;
  if (query.error !== undefined || query.error_description !== undefined || typeof query.code !== 'string') {
    return failTo(ctx, deps, 'auth_failed');
  }
  if (flow === null || query.state !== flow.state) return failTo(ctx, deps, 'invalid_state');
  if (provider.usePkce && flow.verifier === null) return failTo(ctx, deps, 'auth_failed');

  let configuration: client.Configuration;
  let claims: Claims;
  try {
    configuration = await services.clients.configuration(provider);
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = ctx.querystring;
    const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
      ...(flow.verifier === null ? {} : { pkceCodeVerifier: flow.verifier }),
    });
    claims = await claimsOf(configuration, provider, tokens);
  } catch (error) {
    const code: OAuth2ErrorCode =
      error instanceof client.ResponseBodyError ? 'oauth_error' : lacksIdToken(error) ? 'no_oidc_support' : 'auth_failed';
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    deps.logger.warn(
      { idp: provider.name, code, err: `${error instanceof Error ? error.message : String(error)}${cause}` },
      'OAuth2 login failed',
    );
    return failTo(ctx, deps, code);
  }

  const sub = typeof claims.sub === 'string' || typeof claims.sub === 'number' ? String(claims.sub).trim() : '';
  if (sub === '') return failTo(ctx, deps, 'auth_failed');
  const email = emailOf(provider, claims);
  if (email === null) return failTo(ctx, deps, 'missing_email_scope');
  if (!inAllowedGroup(provider, claims)) return failTo(ctx, deps, 'not_in_allowed_group');
  const role = decideRole(provider, claims);
  if (role.kind === 'denied') return failTo(ctx, deps, 'role_denied');

  const now = deps.identity.now();
  const session = newSessionTokens(now, deps.settings.auth.tokenExpiryMinutes);
  let result: Awaited<ReturnType<typeof signInExternally>>;
  try {
    result = await signInExternally(
      deps.store,
      {
        method: 'OAUTH2',
        key: `${provider.clientId}\u0000${sub}`,
        email,
        username: usernameOf(claims, email),
        role: role.kind === 'role' ? role.role : null,
        allowSignUp: provider.allowSignUp,
        oauth2ClientId: provider.clientId,
        oauth2UserId: sub,
        provider: provider.name,
      },
      session,
      now.toISOString(),
      commandContextOf(ctx),
    );
  } catch (error) {
    deps.logger.warn({ idp: provider.name, err: error instanceof Error ? error.message : String(error) }, 'OAuth2 sign-in refused');
    return failTo(ctx, deps, 'auth_failed');
  }
  if (!result.ok) return failTo(ctx, deps, result.code);
  await readYourWrites(deps.runner)(result.position, { timeoutMs: SIGN_IN_SETTLE_MS });
  clearFlowCookie(ctx, cookiePath(deps), deps.settings.auth.secureCookies);
  await sendSessionCookies(ctx, deps, session);
  ctx.redirect(`${deps.settings.rootPath}${flow.returnUrl ?? '/'}`);
};

/**
 * `GET|POST /oauth2/<idp>/login` sends the browser to the provider (authorization code flow,
 * state + nonce, PKCE S256 when configured); `GET /oauth2/<idp>/tokens` is the redirect URI the
 * provider sends it back to. Public routes: they are how one gets a session.
 */
export const oauth2Routes = (deps: AppDeps): RouteDef[] =>
  (deps.settings.auth.oauth2Providers ?? []).length === 0
    ? []
    : [
        { method: 'GET', path: '/oauth2/:idp/login', permission: 'public', handler: login(deps) },
        { method: 'POST', path: '/oauth2/:idp/login', permission: 'public', body: 'none', handler: login(deps) },
        { method: 'GET', path: '/oauth2/:idp/tokens', permission: 'public', handler: callback(deps) },
      ];
