import { existsSync } from 'node:fs';
import { canonicalDn } from '../../api/identity/ldap/canonicalDn.ts';
import type { LdapRoleMapping, LdapSettings, LdapTlsMode } from '../../api/identity/ldap/ldapSettings.ts';
import { LDAP_TLS_MODES } from '../../api/identity/ldap/ldapSettings.ts';
import { parseAssignableRole } from '../../domain/identity/roles.ts';
import type { ConfigReader } from './configReader.ts';
import { quoteValue } from './configReader.ts';

const V = (name: string) => `SERVICE_LDAP_${name}`;

const DEFAULT_USER_SEARCH_FILTER = '(&(objectClass=user)(sAMAccountName=%s))';

const parseJson = (r: ConfigReader, variable: string, value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    r.problem(variable, 'must be valid JSON');
    return undefined;
  }
};

/** A JSON array of DNs (the empty DN is allowed: search from the root). */
const readDnList = (r: ConfigReader, name: string, required: boolean): string[] => {
  const value = r.raw(V(name));
  if (value === undefined) {
    if (required) r.problem(V(name), 'must be set: a JSON array of base DNs, e.g. ["ou=people,dc=example,dc=com"]');
    return [];
  }
  const parsed = parseJson(r, V(name), value);
  if (parsed === undefined) return [];
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.some((dn) => typeof dn !== 'string')) {
    r.problem(V(name), 'must be a JSON array of at least one DN string, e.g. ["ou=people,dc=example,dc=com"]');
    return [];
  }
  for (const dn of parsed as string[]) if (canonicalDn(dn) === null) r.problem(V(name), `${quoteValue(dn)} is not a valid DN`);
  return parsed as string[];
};

const readMappings = (r: ConfigReader): LdapRoleMapping[] => {
  const variable = V('GROUP_ROLE_MAPPINGS');
  const example = 'e.g. [{"group_dn": "cn=admins,ou=groups,dc=example,dc=com", "role": "ADMIN"}, {"group_dn": "*", "role": "VIEWER"}]';
  const value = r.raw(variable);
  if (value === undefined) {
    r.problem(variable, `must be set: a JSON array of at least one {group_dn, role}, ${example}`);
    return [];
  }
  const parsed = parseJson(r, variable, value);
  if (parsed === undefined) return [];
  if (!Array.isArray(parsed) || parsed.length === 0) {
    r.problem(variable, `must be a JSON array of at least one {group_dn, role} (LDAP users would get no role), ${example}`);
    return [];
  }
  const mappings: LdapRoleMapping[] = [];
  parsed.forEach((entry: unknown, i) => {
    const item = entry as { group_dn?: unknown; role?: unknown } | null;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      r.problem(variable, `entry ${i + 1} must be an object with group_dn and role`);
      return;
    }
    const groupDn = typeof item.group_dn === 'string' ? item.group_dn.trim() : '';
    const canonical = groupDn === '*' ? '*' : canonicalDn(groupDn);
    if (groupDn === '' || canonical === null || canonical === '') {
      r.problem(variable, `entry ${i + 1}: group_dn must be a DN or * (everyone who authenticates)`);
      return;
    }
    const role = typeof item.role === 'string' ? parseAssignableRole(item.role) : null;
    if (role === null) {
      r.problem(variable, `entry ${i + 1}: role must be ADMIN, MEMBER or VIEWER`);
      return;
    }
    mappings.push({ groupDn: canonical, role });
  });
  return mappings;
};

/** An attribute name; empty means "none" where allowed. */
const readAttribute = (r: ConfigReader, name: string, fallback: string | null): string | null => {
  const value = r.raw(V(name));
  if (value === undefined) return fallback;
  if (/\s/.test(value)) {
    r.problem(
      V(name),
      `must be an attribute name without spaces (got ${quoteValue(value)}; did you mean ${quoteValue(value.replace(/\s+/g, ''))}?)`,
    );
    return fallback;
  }
  return value;
};

const readFile = (r: ConfigReader, name: string): string | null => {
  const path = r.raw(V(name)) ?? null;
  if (path !== null && !existsSync(path)) r.problem(V(name), `file ${quoteValue(path)} does not exist`);
  return path;
};

const readFilter = (r: ConfigReader, name: string, fallback: string | null): string | null => {
  const value = r.raw(V(name)) ?? fallback;
  if (value !== null && !value.includes('%s')) r.problem(V(name), 'must contain %s (where the username goes)');
  if (value !== null && !(value.startsWith('(') && value.endsWith(')')))
    r.problem(V(name), 'must be an LDAP filter in parentheses, e.g. (uid=%s)');
  return value;
};

/**
 * LDAP login, configured when `SERVICE_LDAP_HOST` is set. `hasAdmins`: SERVICE_ADMINS is set
 * (which no-email mode cannot honour: those admins are matched by email).
 */
export const readLdap = (r: ConfigReader, options: { readonly hasAdmins: boolean }): LdapSettings | null => {
  const hostValue = r.raw(V('HOST'));
  if (hostValue === undefined) return null;
  const hosts = hostValue
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const host of hosts) {
    if (!/^[A-Za-z0-9.\-:[\]]+$/.test(host)) r.problem(V('HOST'), `${quoteValue(host)} is not a hostname or IP address`);
  }
  if (hosts.length === 0) r.problem(V('HOST'), 'must name at least one host');

  const modeRaw = r.raw(V('TLS_MODE'))?.toLowerCase() ?? 'starttls';
  const mode = LDAP_TLS_MODES.find((m) => m === modeRaw);
  if (mode === undefined) r.problem(V('TLS_MODE'), `must be one of ${LDAP_TLS_MODES.join(', ')} (got ${quoteValue(modeRaw)})`);
  const tlsMode: LdapTlsMode = mode ?? 'starttls';

  const portRaw = r.raw(V('PORT'));
  let port = tlsMode === 'ldaps' ? 636 : 389;
  if (portRaw !== undefined) {
    const n = /^\d+$/.test(portRaw) ? Number(portRaw) : Number.NaN;
    if (Number.isInteger(n) && n >= 1 && n <= 65535) port = n;
    else r.problem(V('PORT'), `must be an integer from 1 to 65535 (got ${quoteValue(portRaw)})`);
  }

  const tlsClientCertFile = readFile(r, 'TLS_CLIENT_CERT_FILE');
  const tlsClientKeyFile = readFile(r, 'TLS_CLIENT_KEY_FILE');
  if ((tlsClientCertFile === null) !== (tlsClientKeyFile === null)) {
    r.problem(
      V(tlsClientCertFile === null ? 'TLS_CLIENT_CERT_FILE' : 'TLS_CLIENT_KEY_FILE'),
      'must be set together with the other of SERVICE_LDAP_TLS_CLIENT_CERT_FILE / SERVICE_LDAP_TLS_CLIENT_KEY_FILE',
    );
  }

  const bindDn = r.raw(V('BIND_DN')) ?? null;
  const bindPassword = r.raw(V('BIND_PASSWORD')) ?? null;
  if (bindDn !== null && bindPassword === null) r.problem(V('BIND_PASSWORD'), 'must be set together with SERVICE_LDAP_BIND_DN');
  if (bindDn === null && bindPassword !== null) r.problem(V('BIND_DN'), 'must be set together with SERVICE_LDAP_BIND_PASSWORD');
  if (bindDn !== null && canonicalDn(bindDn) === null) r.problem(V('BIND_DN'), `${quoteValue(bindDn)} is not a valid DN`);

  const emailRaw = r.raw(V('ATTR_EMAIL'));
  if (emailRaw === undefined)
    r.problem(V('ATTR_EMAIL'), 'must be set: the attribute holding the email (e.g. mail), or null for no-email mode');
  const attrEmail = emailRaw === undefined || emailRaw.toLowerCase() === 'null' ? null : readAttribute(r, 'ATTR_EMAIL', null);
  const attrUniqueId = readAttribute(r, 'ATTR_UNIQUE_ID', null);
  const allowSignUp = r.boolean(V('ALLOW_SIGN_UP'), true);
  if (emailRaw !== undefined && attrEmail === null) {
    if (attrUniqueId === null)
      r.problem(V('ATTR_UNIQUE_ID'), 'must be set when SERVICE_LDAP_ATTR_EMAIL is null (no-email mode identifies users by it)');
    if (!allowSignUp)
      r.problem(V('ALLOW_SIGN_UP'), 'must be true when SERVICE_LDAP_ATTR_EMAIL is null (users cannot be pre-provisioned without an email)');
    if (options.hasAdmins)
      r.problem(
        'SERVICE_ADMINS',
        'cannot be used when SERVICE_LDAP_ATTR_EMAIL is null (admins come from SERVICE_LDAP_GROUP_ROLE_MAPPINGS)',
      );
  }

  const groupSearchFilter = readFilter(r, 'GROUP_SEARCH_FILTER', null);
  const groupSearchBaseDns = readDnList(r, 'GROUP_SEARCH_BASE_DNS', groupSearchFilter !== null);
  const groupSearchFilterUserAttr = readAttribute(r, 'GROUP_SEARCH_FILTER_USER_ATTR', null);
  if (groupSearchFilterUserAttr !== null && groupSearchFilter === null) {
    r.problem(V('GROUP_SEARCH_FILTER_USER_ATTR'), 'is only used with SERVICE_LDAP_GROUP_SEARCH_FILTER, which is unset');
  }

  return {
    hosts,
    port,
    tlsMode,
    tlsVerify: r.boolean(V('TLS_VERIFY'), true),
    tlsCaCertFile: readFile(r, 'TLS_CA_CERT_FILE'),
    tlsClientCertFile,
    tlsClientKeyFile,
    bindDn,
    bindPassword,
    userSearchBaseDns: readDnList(r, 'USER_SEARCH_BASE_DNS', true),
    userSearchFilter: readFilter(r, 'USER_SEARCH_FILTER', DEFAULT_USER_SEARCH_FILTER) ?? DEFAULT_USER_SEARCH_FILTER,
    attrEmail,
    attrDisplayName: readAttribute(r, 'ATTR_DISPLAY_NAME', 'displayName'),
    attrMemberOf: readAttribute(r, 'ATTR_MEMBER_OF', 'memberOf'),
    attrUniqueId,
    groupSearchBaseDns,
    groupSearchFilter,
    groupSearchFilterUserAttr,
    groupRoleMappings: readMappings(r),
    allowSignUp,
  };
};
