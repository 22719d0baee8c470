import type { AssignableRole } from '../../../domain/identity/roles.ts';

export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** One OpenID Connect provider, from the `SERVICE_OAUTH2_<IDP>_*` variables (checked by ops/config/oauth2Config.ts). */
export type OAuth2ProviderSettings = {
  /** The `<IDP>` part, lower-cased: `[a-z0-9_]+`, used in `/oauth2/<name>/login`. */
  readonly name: string;
  readonly displayName: string;
  readonly clientId: string;
  /** null only with `none` (a public client, usually with PKCE). */
  readonly clientSecret: string | null;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The provider's `/.well-known/openid-configuration` URL (fetched at the first login, then kept). */
  readonly oidcConfigUrl: string;
  readonly allowSignUp: boolean;
  readonly autoLogin: boolean;
  readonly usePkce: boolean;
  /** `openid email profile` plus the extra scopes, deduplicated, space-separated. */
  readonly scopes: string;
  /** JMESPath expressions over the ID token claims (then userinfo); compiled at start. */
  readonly emailAttributePath: string;
  readonly groupsAttributePath: string | null;
  /** Exact, case-sensitive group names; empty = no group check. */
  readonly allowedGroups: readonly string[];
  readonly roleAttributePath: string | null;
  /** Provider role (exact) → our role; empty = the value itself must name a role. */
  readonly roleMapping: readonly (readonly [string, AssignableRole])[];
  readonly roleAttributeStrict: boolean;
};
