import type { AuthSettings } from '../api/auth/authSettings.ts';
import type { Authenticator } from '../api/auth/createAuthenticator.ts';
import { createAuthenticator } from '../api/auth/createAuthenticator.ts';
import type { IdentityServices } from '../api/auth/identityServices.ts';
import { createTokenCodec } from '../api/auth/tokenCodec.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import { passwordRuleFor } from '../domain/identity/passwordPolicy.ts';
import type { PasswordCost } from '../domain/identity/passwords.ts';
import { createPasswordHasher, DEFAULT_PASSWORD_COST } from '../domain/identity/passwords.ts';
import { createAuthLiveModel } from '../projections/access/authLiveModel.ts';
import type { LiveModel } from '../projections/liveModel.ts';
import type { ProjectionRunner } from '../projections/projectionRunner.ts';
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
};

/** The identity slice of the composition root, from the configuration. */
export const createIdentity = (config: Config, options: { readonly passwordCost?: PasswordCost; readonly now?: () => Date } = {}): Identity => {
  const now = options.now ?? (() => new Date());
  const live = createAuthLiveModel(now);
  const tokens = config.auth.secret === null ? null : createTokenCodec(config.auth.secret);
  const services: IdentityServices = {
    state: live.state,
    passwords: createPasswordHasher(options.passwordCost ?? DEFAULT_PASSWORD_COST),
    tokens,
    mailer: config.smtp === null ? null : createMailer(config.smtp),
    keyring: secretKeyring(config.auth.secret),
    now,
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
  };
  return {
    liveModel: live.model,
    services,
    settings,
    authenticator: (store, runner) =>
      createAuthenticator({
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
      }),
  };
};
