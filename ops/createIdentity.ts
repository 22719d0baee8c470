import type { AuthSettings } from '../api/identity/authSettings.ts';
import type { Authenticator } from '../api/identity/createAuthenticator.ts';
import { createAuthenticator } from '../api/identity/createAuthenticator.ts';
import type { IdentityServices } from '../api/identity/identityServices.ts';
import { createOAuth2Clients } from '../api/identity/oauth2/oauth2Clients.ts';
import { createFlowCookieCodec } from '../api/identity/oauth2/oauth2FlowCookie.ts';
import { createTokenCodec } from '../api/identity/tokenCodec.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import { passwordRuleFor } from '../domain/identity/passwordPolicy.ts';
import type { PasswordCost } from '../domain/identity/passwords.ts';
import { createPasswordHasher, DEFAULT_PASSWORD_COST } from '../domain/identity/passwords.ts';
import { limitPasswordHashing } from './limitPasswordHashing.ts';
import { createUnknownAccountLockout } from '../domain/identity/unknownAccountLockout.ts';
import { createAuthFreshness } from '../projections/identity/authFreshness.ts';
import { createAuthLiveModel } from '../projections/identity/authLiveModel.ts';
import type { LiveModel } from '../projections/liveModel.ts';
import type { ProjectionRunner } from '../projections/projectionRunner.ts';
import { readModelPosition } from '../projections/readModelPosition.ts';
import type { Config } from './config.ts';
import { createMailer } from './createMailer.ts';
import { secretKeyring } from './secretKeyring.ts';

export type Identity = {
  /** Register with the projection runner: it keeps `services.state` current. */
  readonly liveModel: LiveModel;
  readonly services: IdentityServices;
  readonly settings: AuthSettings;
  /** Once the runner exists: request authentication against this process's state. */
  readonly authenticator: (store: EventStore, runner: ProjectionRunner) => Authenticator;
  /** Settings worth a warning at start (the server logs them). */
  readonly warnings: readonly string[];
};

/** The identity slice of the composition root, from the configuration. */
export const createIdentity = (
  config: Config,
  options: { readonly passwordCost?: PasswordCost; readonly now?: () => Date } = {},
): Identity => {
  const now = options.now ?? (() => new Date());
  const live = createAuthLiveModel(now);
  const freshness = createAuthFreshness();
  const tokens = config.auth.secret === null ? null : createTokenCodec(config.auth.secret);
  const services: IdentityServices = {
    state: live.state,
    freshness,
    unknownAccounts: createUnknownAccountLockout(),
    passwords: limitPasswordHashing(createPasswordHasher(options.passwordCost ?? DEFAULT_PASSWORD_COST)),
    tokens,
    mailer: config.smtp === null ? null : createMailer(config.smtp),
    keyring: secretKeyring(config.auth.secret),
    now,
    oauth2: {
      clients: createOAuth2Clients(),
      flowCookies: config.auth.secret === null ? null : createFlowCookieCodec(config.auth.secret),
    },
  };
  const { auth } = config;
  const settings: AuthSettings = {
    enabled: auth.enabled,
    secureCookies: auth.useSecureCookies,
    csrfTrustedOrigins: auth.csrfTrustedOrigins,
    disableBasicAuth: auth.disableBasicAuth,
    passwordRule: passwordRuleFor(auth.strongPasswordPolicy),
    lockout: auth.bruteForce,
    tokenExpiryMinutes: auth.tokenExpiryMinutes,
    rootUrl: config.http.rootUrl,
    trustProxy: config.http.trustProxy,
    oauth2Providers: config.oauth2,
    ldap: config.ldap,
  };
  const warnings =
    config.smtp !== null && config.http.rootUrl === null
      ? [
          config.http.trustProxy
            ? "SERVICE_ROOT_URL is unset: links in mails take their host from the proxy's X-Forwarded-Host (SERVICE_TRUST_PROXY); set SERVICE_ROOT_URL to fix it"
            : 'SERVICE_ROOT_URL is unset: links in mails (password reset, welcome) point at http://localhost:<port>; set it to the browser-facing URL',
        ]
      : [];
  return {
    warnings,
    liveModel: live.model,
    services,
    settings,
    authenticator: (store, runner) => {
      freshness.connect({
        applied: () => readModelPosition(runner, ['users', 'api_keys']),
        failing: () => runner.lastError() !== null,
        head: () => store.headPosition(),
      });
      return createAuthenticator({
        enabled: auth.enabled,
        adminSecret: auth.adminSecret,
        tokens,
        state: live.state,
        now,
        catchUp: async () => {
          try {
            await runner.waitFor(await store.headPosition(), 2000);
          } catch {
            // Still behind: the credential is judged on what this process knows.
          }
        },
        freshness,
        store,
      });
    },
  };
};
