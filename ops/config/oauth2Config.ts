import jmespath from 'jmespath';
import type { OAuth2ProviderSettings, TokenEndpointAuthMethod } from '../../api/identity/oauth2/oauth2Settings.ts';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../../api/identity/oauth2/oauth2Settings.ts';
import type { AssignableRole } from '../../domain/identity/roles.ts';
import { parseAssignableRole } from '../../domain/identity/roles.ts';
import type { ConfigReader } from './configReader.ts';
import { quoteValue } from './configReader.ts';

const SUFFIXES = [
  'DISPLAY_NAME',
  'CLIENT_ID',
  'CLIENT_SECRET',
  'OIDC_CONFIG_URL',
  'ALLOW_SIGN_UP',
  'AUTO_LOGIN',
  'USE_PKCE',
  'TOKEN_ENDPOINT_AUTH_METHOD',
  'SCOPES',
  'EMAIL_ATTRIBUTE_PATH',
  'GROUPS_ATTRIBUTE_PATH',
  'ALLOWED_GROUPS',
  'ROLE_ATTRIBUTE_PATH',
  'ROLE_MAPPING',
  'ROLE_ATTRIBUTE_STRICT',
] as const;

// Greedy `\w+`: in SERVICE_OAUTH2_MY_IDP_CLIENT_ID the provider is `my_idp`.
const VARIABLE = new RegExp(`^SERVICE_OAUTH2_(\\w+)_(${SUFFIXES.join('|')})$`);

/** Names the login routes would confuse with an OAuth2 server's own endpoints. */
const RESERVED = new Set(['authorize', 'token', 'revoke', 'register', 'consent']);

const BASE_SCOPES = ['openid', 'email', 'profile'];

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const SPECIAL_WORDS: Readonly<Record<string, string>> = { aws: 'AWS', id: 'ID', oidc: 'OIDC', sso: 'SSO' };

/** `microsoft_entra_id` → `Microsoft Entra ID`. */
const displayNameOf = (name: string): string =>
  name
    .split('_')
    .filter((word) => word !== '')
    .map((word) => SPECIAL_WORDS[word] ?? word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

/** The provider names that have at least one variable set, sorted. */
const providerNames = (env: Readonly<Record<string, string | undefined>>): string[] => {
  const names = new Set<string>();
  for (const [variable, value] of Object.entries(env)) {
    if (value === undefined || value.trim() === '') continue;
    const match = VARIABLE.exec(variable);
    if (match !== null) names.add(match[1]!);
  }
  return [...names].sort();
};

const compiles = (r: ConfigReader, variable: string, expression: string): boolean => {
  try {
    // compile is exported by the package but missing from its type declarations.
    (jmespath as unknown as { compile: (expression: string) => unknown }).compile(expression);
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    r.problem(
      variable,
      `is not a valid JMESPath expression (${reason}); keys with special characters such as :, ., / or - must be double-quoted, e.g. "https://example.com/roles"`,
    );
    return false;
  }
};

const readConfigUrl = (r: ConfigReader, variable: string, value: string | undefined): string => {
  if (value === undefined) {
    r.problem(variable, 'must be set (the provider’s /.well-known/openid-configuration URL)');
    return '';
  }
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    r.problem(
      variable,
      `must be an absolute https:// URL with a host (got ${value.includes('@') ? '(value not shown)' : quoteValue(value)})`,
    );
    return '';
  }
  if (url.protocol === 'http:' && !LOCAL_HOSTS.has(url.hostname)) {
    r.problem(variable, 'must use https:// (plain http:// is only allowed for localhost, 127.0.0.1 and ::1)');
    return '';
  }
  if (url.username !== '' || url.password !== '') {
    r.problem(variable, 'must not contain a user name or password');
    return '';
  }
  return value;
};

const readRoleMapping = (r: ConfigReader, variable: string, value: string | undefined): [string, AssignableRole][] => {
  if (value === undefined) return [];
  const pairs: [string, AssignableRole][] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const at = entry.lastIndexOf(':');
    const idpRole = at < 0 ? '' : entry.slice(0, at).trim();
    const target = at < 0 ? '' : entry.slice(at + 1).trim();
    if (at < 0 || idpRole === '') {
      r.problem(variable, `entry ${quoteValue(entry)} must be IdpRole:Role, e.g. Engineering:MEMBER`);
      continue;
    }
    if (target.toUpperCase() === 'SYSTEM') {
      r.problem(variable, `entry ${quoteValue(entry)} maps to SYSTEM, which cannot be assigned (use ADMIN, MEMBER or VIEWER)`);
      continue;
    }
    const role = parseAssignableRole(target);
    if (role === null) {
      r.problem(variable, `entry ${quoteValue(entry)} must map to ADMIN, MEMBER or VIEWER`);
      continue;
    }
    if (pairs.some(([key]) => key === idpRole)) {
      r.problem(variable, `provider role ${quoteValue(idpRole)} appears more than once`);
      continue;
    }
    pairs.push([idpRole, role]);
  }
  return pairs;
};

const readProvider = (r: ConfigReader, name: string): OAuth2ProviderSettings => {
  const v = (suffix: (typeof SUFFIXES)[number]) => `SERVICE_OAUTH2_${name}_${suffix}`;
  const idp = name.toLowerCase();
  if (RESERVED.has(idp)) r.problem(v('CLIENT_ID'), `provider name ${quoteValue(idp)} is reserved (${[...RESERVED].join(', ')})`);

  const clientId = r.raw(v('CLIENT_ID'));
  if (clientId === undefined) r.problem(v('CLIENT_ID'), `must be set for the ${idp} OAuth2 provider`);

  const methodRaw = r.raw(v('TOKEN_ENDPOINT_AUTH_METHOD'))?.toLowerCase() ?? 'client_secret_basic';
  const method = TOKEN_ENDPOINT_AUTH_METHODS.find((m) => m === methodRaw);
  if (method === undefined) {
    r.problem(v('TOKEN_ENDPOINT_AUTH_METHOD'), `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')} (got ${quoteValue(methodRaw)})`);
  }
  const authMethod: TokenEndpointAuthMethod = method ?? 'client_secret_basic';
  const clientSecret = r.raw(v('CLIENT_SECRET')) ?? null;
  if (clientSecret === null && authMethod !== 'none') {
    r.problem(v('CLIENT_SECRET'), `must be set unless ${v('TOKEN_ENDPOINT_AUTH_METHOD')} is none (a public client)`);
  }

  const oidcConfigUrl = readConfigUrl(r, v('OIDC_CONFIG_URL'), r.raw(v('OIDC_CONFIG_URL')));

  const extraScopes = (r.raw(v('SCOPES')) ?? '').split(/\s+/).filter((s) => s !== '');
  const scopes = [...new Set([...BASE_SCOPES, ...extraScopes])].join(' ');

  const emailAttributePath = r.raw(v('EMAIL_ATTRIBUTE_PATH')) ?? 'email';
  compiles(r, v('EMAIL_ATTRIBUTE_PATH'), emailAttributePath);

  const groupsAttributePath = r.raw(v('GROUPS_ATTRIBUTE_PATH')) ?? null;
  if (groupsAttributePath !== null) compiles(r, v('GROUPS_ATTRIBUTE_PATH'), groupsAttributePath);
  const allowedGroups = [
    ...new Set(
      (r.raw(v('ALLOWED_GROUPS')) ?? '')
        .split(',')
        .map((g) => g.trim())
        .filter((g) => g !== ''),
    ),
  ];
  if (groupsAttributePath !== null && allowedGroups.length === 0) {
    r.problem(v('ALLOWED_GROUPS'), `must be set together with ${v('GROUPS_ATTRIBUTE_PATH')}`);
  }
  if (groupsAttributePath === null && allowedGroups.length > 0) {
    r.problem(v('GROUPS_ATTRIBUTE_PATH'), `must be set together with ${v('ALLOWED_GROUPS')}`);
  }

  const roleAttributePath = r.raw(v('ROLE_ATTRIBUTE_PATH')) ?? null;
  if (roleAttributePath !== null) compiles(r, v('ROLE_ATTRIBUTE_PATH'), roleAttributePath);
  const roleMapping = readRoleMapping(r, v('ROLE_MAPPING'), r.raw(v('ROLE_MAPPING')));
  const roleAttributeStrict = r.boolean(v('ROLE_ATTRIBUTE_STRICT'), false);
  if (roleAttributePath === null && r.raw(v('ROLE_MAPPING')) !== undefined) {
    r.problem(v('ROLE_MAPPING'), `needs ${v('ROLE_ATTRIBUTE_PATH')} (there is no provider role to map)`);
  }
  if (roleAttributePath === null && roleAttributeStrict) {
    r.problem(v('ROLE_ATTRIBUTE_STRICT'), `needs ${v('ROLE_ATTRIBUTE_PATH')} (there is no provider role to be strict about)`);
  }

  return {
    name: idp,
    displayName: r.raw(v('DISPLAY_NAME')) ?? displayNameOf(idp),
    clientId: clientId ?? '',
    clientSecret,
    tokenEndpointAuthMethod: authMethod,
    oidcConfigUrl,
    allowSignUp: r.boolean(v('ALLOW_SIGN_UP'), true),
    autoLogin: r.boolean(v('AUTO_LOGIN'), false),
    usePkce: r.boolean(v('USE_PKCE'), false),
    scopes,
    emailAttributePath,
    groupsAttributePath,
    allowedGroups,
    roleAttributePath,
    roleMapping,
    roleAttributeStrict,
  };
};

/**
 * Every OAuth2 / OpenID Connect provider configured through `SERVICE_OAUTH2_<IDP>_*`. Any variable
 * of a provider makes it exist, so a half-configured provider fails the start instead of silently
 * missing from the login page.
 */
export const readOAuth2Providers = (r: ConfigReader, env: Readonly<Record<string, string | undefined>>): OAuth2ProviderSettings[] => {
  const providers = providerNames(env).map((name) => readProvider(r, name));
  const autoLogin = providers.filter((p) => p.autoLogin);
  if (autoLogin.length > 1) {
    for (const p of autoLogin.slice(1)) {
      r.problem(
        `SERVICE_OAUTH2_${p.name.toUpperCase()}_AUTO_LOGIN`,
        `only one provider may auto-login (${autoLogin[0]!.name} already does)`,
      );
    }
  }
  return providers;
};
