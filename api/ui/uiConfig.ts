import type Koa from 'koa';
import type { Principal } from '../../domain/access/principal.ts';
import { type PasswordRule, SPECIAL_CHARACTERS } from '../../domain/identity/passwordPolicy.ts';
import { findUser } from '../../projections/identity/userQueries.ts';
import type { AppDeps } from '../appDeps.ts';
import type { UiOptions } from './uiOptions.ts';

/** What the page needs to know about the server before it asks anything (ui/src/lib/config.ts reads it). */
export type UiConfig = {
  readonly rootPath: string;
  readonly authEnabled: boolean;
  readonly basicAuthEnabled: boolean;
  readonly smtpConfigured: boolean;
  readonly managementUrl: string | null;
  readonly serverVersion: string;
  readonly oauth2Providers: readonly { readonly name: string; readonly displayName: string; readonly autoLogin: boolean }[];
  readonly ldapEnabled: boolean;
  /** The OTLP ports besides the main one (the pages show a newcomer where to send traces). */
  readonly otlp: { readonly httpPort: number; readonly grpcPort: number } | null;
  readonly defaultProjectName: string;
  /** What a new password must meet, shown beside every form that sets one. */
  readonly passwordRule: PasswordRule & { readonly specialCharacters: string };
};

/** The management link goes only to the admins the operator listed, so it depends on who asks. */
const managementUrlFor = async (deps: AppDeps, options: UiOptions, principal: Principal | null): Promise<string | null> => {
  if (options.managementUrl === null || principal === null || principal.kind !== 'user') return null;
  if (principal.role !== 'ADMIN') return null;
  const user = await findUser(deps.pool, principal.userId);
  const email = user?.email?.toLowerCase();
  return email !== undefined && options.managementAdmins.includes(email) ? options.managementUrl : null;
};

export const uiConfigFor = async (ctx: Koa.Context, deps: AppDeps, options: UiOptions): Promise<UiConfig> => {
  const auth = deps.settings.auth;
  const otlpPorts = options.otlpPorts();
  return {
    rootPath: deps.settings.rootPath,
    authEnabled: auth.enabled,
    basicAuthEnabled: !auth.disableBasicAuth,
    smtpConfigured: deps.identity.mailer !== null,
    managementUrl: auth.enabled
      ? await managementUrlFor(deps, options, (ctx.state.principal as Principal | null) ?? null)
      : options.managementUrl,
    serverVersion: deps.settings.serverVersion,
    oauth2Providers: auth.enabled
      ? (auth.oauth2Providers ?? []).map((p) => ({ name: p.name, displayName: p.displayName, autoLogin: p.autoLogin }))
      : [],
    ldapEnabled: auth.enabled && (auth.ldap ?? null) !== null,
    passwordRule: { ...auth.passwordRule, specialCharacters: SPECIAL_CHARACTERS },
    otlp: otlpPorts === null ? null : { httpPort: otlpPorts.http, grpcPort: otlpPorts.grpc },
    defaultProjectName: options.defaultProjectName,
  };
};
