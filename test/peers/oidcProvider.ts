import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the little used here is typed below.
import ProviderModule from 'oidc-provider';

/** A client registration (oidc-provider's ClientMetadata, the fields tests use). */
export type ClientMetadata = {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  readonly redirect_uris: readonly string[];
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
};

type Interaction = {
  prompt: { name: string; details: unknown };
  params: Record<string, unknown>;
  session?: { accountId: string };
};
type Grant = {
  addOIDCScope(scope: string): void;
  rejectOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  save(): Promise<string>;
};
type Provider = {
  proxy: boolean;
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: unknown, options: unknown): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => Grant;
};
const ProviderCtor = ProviderModule as unknown as new (issuer: string, configuration: unknown) => Provider;

/** A person at the provider: `sub` plus whatever claims the test wants (email, name, groups, role…). */
export type OidcAccount = { readonly sub: string } & Record<string, unknown>;

export type OidcPeer = {
  /** `http://127.0.0.1:<port>` (the issuer). */
  readonly issuer: string;
  /** The discovery URL for SERVICE_OAUTH2_<IDP>_OIDC_CONFIG_URL. */
  readonly configUrl: string;
  /** Registers the clients once the relying party's port (and so its redirect URI) is known. */
  readonly configure: (clients: readonly ClientMetadata[]) => void;
  /** Who is "signed in" at the provider for the next authorization request (no login form: the test decides). */
  signInAs(account: OidcAccount): void;
  /** Replaces the claims of an account (e.g. a changed role between logins). */
  readonly accounts: Map<string, OidcAccount>;
  /** Every request path the provider served, e.g. to see whether /me (userinfo) was asked. */
  readonly requests: string[];
  close(): Promise<void>;
};

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a random loopback port.
 * `idTokenHasClaims`: false keeps email, name, groups and role out of the ID token (a conforming
 * provider puts them only in userinfo), so the relying party has to fetch userinfo.
 * `withholdOpenidFrom`: client ids whose consent grants every scope but `openid`, so their token
 * response carries no ID token (what a plain OAuth2 authorization server answers).
 * The interaction (login + consent) is finished by the peer itself for the account set with
 * `signInAs`, so a test drives the whole flow with plain HTTP requests.
 */
export const startOidcProvider = async (options: {
  readonly idTokenHasClaims: boolean;
  readonly withholdOpenidFrom?: readonly string[];
}): Promise<OidcPeer> => {
  let provider: Provider | null = null;
  let current: OidcAccount | null = null;
  const accounts = new Map<string, OidcAccount>();
  const requests: string[] = [];

  const finishInteraction = async (req: IncomingMessage, res: ServerResponse, p: Provider) => {
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      if (current === null) throw new Error('oidc peer: nobody to sign in (call signInAs first)');
      await p.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const promptDetails = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    const clientId = details.params.client_id as string;
    const grant = new p.Grant({ accountId: details.session!.accountId, clientId });
    const withhold = options.withholdOpenidFrom?.includes(clientId) === true;
    const scopes = (promptDetails.missingOIDCScope ?? []).filter((scope) => !(withhold && scope === 'openid'));
    if (scopes.length > 0) grant.addOIDCScope(scopes.join(' '));
    if (withhold) grant.rejectOIDCScope('openid');
    if (promptDetails.missingOIDCClaims) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
    const grantId = await grant.save();
    await p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const p = provider;
    if (p === null) {
      res.statusCode = 503;
      res.end('not configured');
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      finishInteraction(req, res, p).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    void p.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    configUrl: `${issuer}/.well-known/openid-configuration`,
    accounts,
    requests,
    configure: (clients) => {
      provider = new ProviderCtor(issuer, {
        clients: [...clients],
        cookies: { keys: ['oidc-peer-cookie-key-for-tests-only'] },
        claims: {
          openid: ['sub'],
          email: ['email', 'email_verified'],
          profile: ['name', 'preferred_username', 'role', 'teams'],
          // A namespaced claim, as many providers name custom ones (a JMESPath key that must be quoted).
          groups: ['groups', 'https://loupe.test/groups'],
          role: ['roles'],
        },
        scopes: ['openid', 'email', 'profile', 'groups', 'role', 'offline_access'],
        conformIdTokenClaims: !options.idTokenHasClaims,
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        findAccount: (_ctx: unknown, sub: string) => {
          const account = accounts.get(sub);
          if (account === undefined) return undefined;
          return { accountId: sub, claims: () => ({ ...account, sub }) };
        },
      });
      // Plain http on loopback: the provider must not insist on TLS for its own cookies.
      provider.proxy = true;
    },
    signInAs(account) {
      accounts.set(account.sub, account);
      current = account;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Cookies per host (`127.0.0.1:port`), as a browser keeps them (paths ignored: one app, one provider). */
export type CookieJar = Map<string, Map<string, string>>;

export type Navigation = {
  /** Where the redirects ended: the first URL `stopAt` accepted (not requested), or the last one requested. */
  readonly final: URL;
  /** Every response on the way (status, Location, Set-Cookie). */
  readonly hops: readonly {
    readonly url: string;
    readonly status: number;
    readonly location: string | null;
    readonly setCookies: readonly string[];
  }[];
};

/**
 * Follows a login through redirects the way a browser would, keeping cookies per host: our
 * `/oauth2/<idp>/login`, the provider's authorization and interaction endpoints, our callback.
 * Stops before requesting a URL `stopAt` accepts (the page the app sends the browser to).
 */
export const navigate = async (
  start: string,
  jar: CookieJar,
  stopAt: (url: URL) => boolean,
  method: 'GET' | 'POST' = 'GET',
): Promise<Navigation> => {
  let url = new URL(start);
  let verb = method;
  const hops: Navigation['hops'][number][] = [];
  for (let i = 0; i < 25; i++) {
    const cookies = jar.get(url.host);
    const headers: Record<string, string> = {};
    if (cookies !== undefined && cookies.size > 0) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { method: verb, headers, redirect: 'manual' });
    await res.arrayBuffer();
    const setCookies = res.headers.getSetCookie();
    const hostJar = jar.get(url.host) ?? new Map<string, string>();
    jar.set(url.host, hostJar);
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /;\s*max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) hostJar.delete(name);
      else hostJar.set(name, value);
    }
    const location = res.headers.get('location');
    hops.push({ url: url.href, status: res.status, location, setCookies });
    if (res.status < 300 || res.status >= 400 || location === null) return { final: url, hops };
    url = new URL(location, url);
    verb = 'GET';
    if (stopAt(url)) return { final: url, hops };
  }
  throw new Error(`too many redirects, last: ${url.href}`);
};
