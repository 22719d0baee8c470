import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Client, type Entry, InvalidCredentialsError } from 'ldapts';
import type { AssignableRole } from '../../../domain/identity/roles.ts';
import { canonicalDn } from './canonicalDn.ts';
import type { LdapSettings } from './ldapSettings.ts';

/** What the directory says about a user whose password it has just accepted. */
export type LdapUser = {
  readonly dn: string;
  /** Trimmed, lower-cased; null in no-email mode. */
  readonly email: string | null;
  /** The display name, or the login username when the entry has none. */
  readonly displayName: string;
  /** Normalised (see uniqueIdOf); null when no unique-id attribute is configured. */
  readonly uniqueId: string | null;
  readonly groups: readonly string[];
  readonly role: AssignableRole;
};

export type LdapOutcome =
  | { readonly kind: 'ok'; readonly user: LdapUser }
  /** Unknown user, wrong password, ambiguous or incomplete entry, no group mapping: the caller answers one generic 401. */
  | { readonly kind: 'refused'; readonly reason: string; readonly entry: RefusedEntry | null }
  /** No server could be asked. */
  | { readonly kind: 'unavailable'; readonly reason: string };

/** How long to wait: for a TCP connection, for one answer of the server, for a whole login whatever the number of hosts (the browser is waiting). */
export type LdapTimeouts = { readonly connectMs: number; readonly operationMs: number; readonly overallMs: number };
const TIMEOUTS: LdapTimeouts = { connectMs: 10_000, operationMs: 30_000, overallMs: 60_000 };

/** RFC 4515: the characters that would change a filter's meaning are hex-escaped. */
export const escapeFilterValue = (value: string): string =>
  value.replace(/[\\*()\u0000]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

const fill = (filter: string, value: string): string => filter.split('%s').join(escapeFilterValue(value));

/** Who the directory found when it then refused the password (so the lockout can count it against that account). */
export type RefusedEntry = { readonly dn: string; readonly email: string | null; readonly uniqueId: string | null };

/** The user is refused on this server; another replica would say the same, so no failover. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly entry: RefusedEntry | null = null,
  ) {
    super(message);
  }
}

const firstValue = (entry: Entry, attribute: string | null): string | Buffer | undefined => {
  if (attribute === null) return undefined;
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  return Array.isArray(value) ? value[0] : (value as string | Buffer | undefined);
};

const allValues = (entry: Entry, attribute: string | null): string[] => {
  if (attribute === null) return [];
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? [] : entry[key];
  return (Array.isArray(value) ? value : [value]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
};

const text = (value: string | Buffer | undefined): string | undefined =>
  value === undefined ? undefined : (Buffer.isBuffer(value) ? value.toString('utf8') : value).trim() || undefined;

/** 16 raw bytes (Active Directory objectGUID) → the GUID string; any other value trimmed and lower-cased. */
export const uniqueIdOf = (value: string | Buffer): string => {
  if (Buffer.isBuffer(value) && value.length === 16) {
    const h = (start: number, end: number, reverse: boolean) => {
      const part = [...value.subarray(start, end)];
      return (reverse ? part.reverse() : part).map((b) => b.toString(16).padStart(2, '0')).join('');
    };
    return `${h(0, 4, true)}-${h(4, 6, true)}-${h(6, 8, true)}-${h(8, 10, false)}-${h(10, 16, false)}`;
  }
  return (Buffer.isBuffer(value) ? value.toString('utf8') : value).trim().toLowerCase();
};

const tlsOptionsOf = (settings: LdapSettings, host: string): ConnectionOptions => ({
  rejectUnauthorized: settings.tlsVerify,
  servername: /^[\d.]+$|:/.test(host) ? undefined : host,
  ...(settings.tlsCaCertFile === null ? {} : { ca: readFileSync(settings.tlsCaCertFile) }),
  ...(settings.tlsClientCertFile === null || settings.tlsClientKeyFile === null
    ? {}
    : { cert: readFileSync(settings.tlsClientCertFile), key: readFileSync(settings.tlsClientKeyFile) }),
});

/** A connection to one host, TLS established before any bind (StartTLS first, or LDAPS). */
const connect = async (settings: LdapSettings, host: string, timeouts: LdapTimeouts): Promise<Client> => {
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const tls = settings.tlsMode === 'none' ? undefined : tlsOptionsOf(settings, host);
  const client = new Client({
    url: `${settings.tlsMode === 'ldaps' ? 'ldaps' : 'ldap'}://${hostPart}:${settings.port}`,
    connectTimeout: timeouts.connectMs,
    timeout: timeouts.operationMs,
    strictDN: false,
    ...(settings.tlsMode === 'ldaps' ? { tlsOptions: tls } : {}),
  });
  if (settings.tlsMode === 'starttls') await client.startTLS(tls);
  return client;
};

const attributesToRead = (settings: LdapSettings): string[] =>
  [settings.attrEmail, settings.attrDisplayName, settings.attrMemberOf, settings.attrUniqueId, settings.groupSearchFilterUserAttr].filter(
    (a): a is string => a !== null,
  );

const findUser = async (client: Client, settings: LdapSettings, username: string): Promise<Entry> => {
  const filter = fill(settings.userSearchFilter, username);
  for (const base of settings.userSearchBaseDns) {
    const { searchEntries } = await client.search(base, { scope: 'sub', filter, attributes: attributesToRead(settings) });
    if (searchEntries.length > 1) throw new Refusal(`ambiguous: ${searchEntries.length} entries match in one base`);
    if (searchEntries.length === 1) return searchEntries[0]!;
  }
  throw new Refusal('user not found');
};

const groupsOf = async (client: Client, settings: LdapSettings, entry: Entry, username: string): Promise<string[]> => {
  if (settings.groupSearchFilter === null) return allValues(entry, settings.attrMemberOf);
  const value = settings.groupSearchFilterUserAttr === null ? username : text(firstValue(entry, settings.groupSearchFilterUserAttr));
  if (value === undefined) return [];
  const filter = fill(settings.groupSearchFilter, value);
  const groups: string[] = [];
  for (const base of settings.groupSearchBaseDns) {
    const { searchEntries } = await client.search(base, { scope: 'sub', filter, attributes: ['1.1'] });
    groups.push(...searchEntries.map((e) => e.dn));
  }
  return groups;
};

/** First mapping that matches wins; `*` matches everyone. */
export const roleFor = (settings: LdapSettings, groups: readonly string[]): AssignableRole | null => {
  const canonical = new Set(groups.map(canonicalDn).filter((dn): dn is string => dn !== null));
  return settings.groupRoleMappings.find((m) => m.groupDn === '*' || canonical.has(m.groupDn))?.role ?? null;
};

const verifyPassword = async (
  settings: LdapSettings,
  host: string,
  dn: string,
  password: string,
  timeouts: LdapTimeouts,
): Promise<void> => {
  const client = await connect(settings, host, timeouts);
  try {
    await client.bind(dn, password);
  } catch (error) {
    if (error instanceof InvalidCredentialsError) throw new Refusal('invalid password');
    throw error;
  } finally {
    await client.unbind().catch(() => undefined);
  }
};

const dummyBind = async (settings: LdapSettings, host: string, password: string, timeouts: LdapTimeouts): Promise<void> => {
  const base = settings.userSearchBaseDns[0] || 'dc=invalid';
  await verifyPassword(settings, host, `cn=${randomBytes(12).toString('hex')},${base}`, password, timeouts).catch(() => undefined);
};

const authenticateOn = async (
  settings: LdapSettings,
  host: string,
  username: string,
  password: string,
  timeouts: LdapTimeouts,
): Promise<LdapUser> => {
  const client = await connect(settings, host, timeouts);
  try {
    if (settings.bindDn !== null) {
      try {
        await client.bind(settings.bindDn, settings.bindPassword ?? '');
      } catch (error) {
        // A wrong service password is a configuration problem of this server: try the next one.
        throw error instanceof InvalidCredentialsError ? new Error('service account bind refused') : error;
      }
    }
    const entry = await findUser(client, settings, username).catch(async (error: unknown) => {
      // An unknown user costs the same as a wrong password (one more bind), so timing does not tell which usernames exist.
      if (error instanceof Refusal) await dummyBind(settings, host, password, timeouts);
      throw error;
    });
    const email = settings.attrEmail === null ? null : (text(firstValue(entry, settings.attrEmail))?.toLowerCase() ?? null);
    const rawId = firstValue(entry, settings.attrUniqueId);
    await verifyPassword(settings, host, entry.dn, password, timeouts).catch((error: unknown) => {
      throw error instanceof Refusal
        ? new Refusal(error.message, { dn: entry.dn, email, uniqueId: rawId === undefined ? null : uniqueIdOf(rawId) })
        : error;
    });
    if (settings.attrEmail !== null && email === null) throw new Refusal(`entry has no ${settings.attrEmail}`);
    if (settings.attrUniqueId !== null && (rawId === undefined || uniqueIdOf(rawId) === '')) {
      throw new Refusal(`entry has no ${settings.attrUniqueId}`);
    }
    const groups = await groupsOf(client, settings, entry, username);
    const role = roleFor(settings, groups);
    if (role === null) throw new Refusal('no group role mapping matches');
    return {
      dn: entry.dn,
      email,
      displayName: text(firstValue(entry, settings.attrDisplayName)) ?? username,
      uniqueId: rawId === undefined ? null : uniqueIdOf(rawId),
      groups,
      role,
    };
  } finally {
    await client.unbind().catch(() => undefined);
  }
};

/**
 * Checks a username and password against the directory. Hosts are tried in order: an unreachable
 * host, a timeout or any other server error moves on to the next; an unknown user or a wrong
 * password is final (the servers are replicas, they would all say the same).
 */
export const authenticateLdap = async (
  settings: LdapSettings,
  username: string,
  password: string,
  timeouts: LdapTimeouts = TIMEOUTS,
): Promise<LdapOutcome> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<LdapOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'unavailable', reason: `no answer within ${timeouts.overallMs / 1000} s` }),
      timeouts.overallMs,
    );
  });
  try {
    return await Promise.race([tryHosts(settings, username, password, timeouts), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

const tryHosts = async (settings: LdapSettings, username: string, password: string, timeouts: LdapTimeouts): Promise<LdapOutcome> => {
  let lastError = 'no host configured';
  for (const host of settings.hosts) {
    try {
      return { kind: 'ok', user: await authenticateOn(settings, host, username, password, timeouts) };
    } catch (error) {
      if (error instanceof Refusal) return { kind: 'refused', reason: error.message, entry: error.entry };
      lastError = `${host}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return { kind: 'unavailable', reason: lastError };
};
