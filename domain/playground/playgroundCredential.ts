import type { PlaygroundProvider } from './playgroundProvider.ts';

/** Which key a provider call carries: the caller's own, none, or a stored one by name. */
export type Credential =
  | { readonly kind: 'own'; readonly key: string }
  | { readonly kind: 'none' }
  /** `orNone`: call without a key when none is stored (a self-hosted server rarely wants one). */
  | { readonly kind: 'stored'; readonly name: string; readonly orNone: boolean };

export type CredentialChoice =
  | { readonly destination: string; readonly credential: Credential }
  | { readonly refused: { readonly status: 403 | 422; readonly code: string; readonly message: string } };

export type CredentialRequest = {
  readonly provider: PlaygroundProvider;
  /** `body.base_url`, canonical (canonicalBaseUrl.ts), or null. */
  readonly baseUrl: string | null;
  /** `body.api_key_secret`, cleaned, or undefined. */
  readonly apiKeySecret: string | undefined;
  /** `body.api_key`: the caller's own key, used for this call only. */
  readonly apiKey: string | undefined;
  /** The base URL an admin configured for the provider (`<PROVIDER>_BASE_URL`), canonical, or null. */
  readonly boundBaseUrl: string | null;
  /** Permission `playground.secrets`: the caller may send any stored secret to any base URL. */
  readonly mayRouteSecrets: boolean;
};

const refuse = (status: 403 | 422, code: string, message: string): CredentialChoice => ({ refused: { status, code, message } });

/**
 * Where a playground call goes and which key it carries. A stored secret is readable by admins
 * only, so it leaves the server only for the destination an admin bound it to: the base URL an
 * admin configured for the provider, else the provider's own endpoint. Anyone else who points the
 * call elsewhere calls with their own key (`api_key`) or none, and may not name a secret other than
 * the provider's own. Admins (and the admin secret) may send any stored secret anywhere the base URL
 * rule allows: they can read those secrets anyway.
 */
export const chooseCredential = (r: CredentialRequest): CredentialChoice => {
  const { provider } = r;
  if (r.apiKey !== undefined && r.apiKeySecret !== undefined)
    return refuse(422, 'conflicting_keys', 'body.api_key and body.api_key_secret: give your own key or the name of a stored one, not both');
  const home = r.boundBaseUrl ?? provider.ownBaseUrl;
  const destination = r.baseUrl ?? home;
  if (destination === null)
    return refuse(
      422,
      'missing_base_url',
      `body.base_url: ${provider.name} is called as an OpenAI-compatible server and needs its base URL (or an admin sets ${provider.name}_BASE_URL)`,
    );
  if (r.apiKey !== undefined) return { destination, credential: r.apiKey === '' ? { kind: 'none' } : { kind: 'own', key: r.apiKey } };
  const named = r.apiKeySecret !== undefined && r.apiKeySecret !== provider.defaultKeyName;
  if (named && !r.mayRouteSecrets)
    return refuse(
      403,
      'secret_not_allowed',
      `body.api_key_secret: only admins may choose which stored secret the playground sends; without it, ${provider.defaultKeyName} is used at ${provider.name}'s configured endpoint, or send your own key in api_key`,
    );
  const name = r.apiKeySecret ?? provider.defaultKeyName;
  // A key sent to the provider's public endpoint must exist; a self-hosted server may want none.
  const orNone = !named && destination !== provider.ownBaseUrl;
  if (destination === home || r.mayRouteSecrets) return { destination, credential: { kind: 'stored', name, orNone } };
  if (r.apiKeySecret !== undefined)
    return refuse(
      403,
      'stored_key_not_allowed',
      `body.api_key_secret: the stored ${name} is sent only to ${home ?? `the base URL an admin configures as ${provider.name}_BASE_URL`}; to call another base URL, send your own key in api_key (or none)`,
    );
  return { destination, credential: { kind: 'none' } };
};
