import type { LockoutSettings } from '../../domain/identity/commands.ts';
import type { PasswordRule } from '../../domain/identity/passwordPolicy.ts';
import type { LdapSettings } from './ldap/ldapSettings.ts';
import type { OAuth2ProviderSettings } from './oauth2/oauth2Settings.ts';

/** What the HTTP layer needs to know about authentication (mapped from ops config). */
export type AuthSettings = {
  readonly enabled: boolean;
  /** `SERVICE_USE_SECURE_COOKIES`. */
  readonly secureCookies: boolean;
  /** Origins whose requests pass the CSRF check; empty = the check is off. */
  readonly csrfTrustedOrigins: readonly string[];
  /** `SERVICE_DISABLE_BASIC_AUTH`: no password logins, no new local users. */
  readonly disableBasicAuth: boolean;
  readonly passwordRule: PasswordRule;
  readonly lockout: LockoutSettings;
  readonly tokenExpiryMinutes: { readonly access: number; readonly refresh: number; readonly passwordReset: number };
  /** `SERVICE_ROOT_URL` (browser-facing, incl. any sub-path) for links in mails; null = see appUrl. */
  readonly rootUrl: string | null;
  /** `SERVICE_TRUST_PROXY`: X-Forwarded-* headers are believed (Koa `proxy`), and may name the mail links' host. */
  readonly trustProxy: boolean;
  /** `SERVICE_OAUTH2_<IDP>_*`; absent or empty = no OAuth2 login. */
  readonly oauth2Providers?: readonly OAuth2ProviderSettings[];
  /** `SERVICE_LDAP_*`; absent or null = no LDAP login. */
  readonly ldap?: LdapSettings | null;
};
