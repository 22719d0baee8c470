import * as client from 'openid-client';
import type { OAuth2ProviderSettings } from './oauth2Settings.ts';

/** The provider's discovered configuration, fetched at the first login and kept (a failure is retried next time). */
export type OAuth2Clients = {
  readonly configuration: (provider: OAuth2ProviderSettings) => Promise<client.Configuration>;
};

const clientAuth = (provider: OAuth2ProviderSettings): client.ClientAuth => {
  switch (provider.tokenEndpointAuthMethod) {
    case 'client_secret_post':
      return client.ClientSecretPost(provider.clientSecret ?? '');
    case 'none':
      return client.None();
    default:
      return client.ClientSecretBasic(provider.clientSecret ?? '');
  }
};

export const createOAuth2Clients = (): OAuth2Clients => {
  const cache = new Map<string, Promise<client.Configuration>>();
  return {
    configuration: (provider) => {
      const cached = cache.get(provider.name);
      if (cached !== undefined) return cached;
      const url = new URL(provider.oidcConfigUrl);
      // Startup validation allows plain http only for localhost.
      const insecure = url.protocol === 'http:';
      const pending = client
        .discovery(url, provider.clientId, undefined, clientAuth(provider), {
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
          timeout: 10,
        })
        .catch((error: unknown) => {
          cache.delete(provider.name);
          throw error;
        });
      cache.set(provider.name, pending);
      return pending;
    },
  };
};
