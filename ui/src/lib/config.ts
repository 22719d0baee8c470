/** What the server tells the page about itself (api/ui/uiConfig.ts builds it). */
export type UiConfig = {
  /** '' or '/some/path': every URL of the app and its API lives under it. */
  readonly rootPath: string;
  readonly authEnabled: boolean;
  /** Password logins (false with SERVICE_DISABLE_BASIC_AUTH). */
  readonly basicAuthEnabled: boolean;
  /** A mailer is configured: "forgot password" can work. */
  readonly smtpConfigured: boolean;
  /** SERVICE_MANAGEMENT_URL, only for the admins listed in SERVICE_ADMINS. */
  readonly managementUrl: string | null;
  readonly serverVersion: string;
  /** Sign-in buttons for OAuth2 / OIDC providers; `autoLogin` (at most one) skips the page when password sign-in is off. */
  readonly oauth2Providers: readonly { readonly name: string; readonly displayName: string; readonly autoLogin?: boolean }[];
  /** Whether the login page offers an LDAP form. */
  readonly ldapEnabled: boolean;
  /** What a new password must meet (domain/identity/passwordPolicy.ts). */
  readonly passwordRule: PasswordRule;
  /** The server's own OTLP ports besides the page's (null when unknown, e.g. `npm run dev:ui`). */
  readonly otlp: { readonly httpPort: number; readonly grpcPort: number } | null;
  /** Where spans that name no project go. */
  readonly defaultProjectName: string;
};

export type PasswordRule = {
  readonly minLength: number;
  readonly digit: boolean;
  readonly lowercase: boolean;
  readonly uppercase: boolean;
  readonly special: boolean;
  readonly specialCharacters: string;
};

export const DEFAULT_CONFIG: UiConfig = {
  rootPath: '',
  authEnabled: false,
  basicAuthEnabled: true,
  smtpConfigured: false,
  managementUrl: null,
  serverVersion: '',
  oauth2Providers: [],
  ldapEnabled: false,
  otlp: null,
  defaultProjectName: 'default',
  passwordRule: { minLength: 4, digit: false, lowercase: false, uppercase: false, special: false, specialCharacters: '!@#$%^&*()_+' },
};

/**
 * The served index.html carries the config in a meta tag (no inline script: the CSP forbids it).
 * `npm run dev:ui` serves the raw index.html, so there it comes from the config endpoint.
 */
export const readConfig = async (): Promise<UiConfig> => {
  const content = document.querySelector('meta[name="loupe-config"]')?.getAttribute('content') ?? '';
  if (content !== '') {
    try {
      return { ...DEFAULT_CONFIG, ...(JSON.parse(content) as Partial<UiConfig>) };
    } catch {
      // fall through to the endpoint
    }
  }
  return fetchConfig('');
};

export const fetchConfig = async (rootPath: string): Promise<UiConfig> => {
  const response = await fetch(`${rootPath}/ui-config.json`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!response.ok) return { ...DEFAULT_CONFIG, rootPath };
  return { ...DEFAULT_CONFIG, ...((await response.json()) as Partial<UiConfig>) };
};
