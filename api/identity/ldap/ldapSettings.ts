import type { AssignableRole } from '../../../domain/identity/roles.ts';

export const LDAP_TLS_MODES = ['starttls', 'ldaps', 'none'] as const;
export type LdapTlsMode = (typeof LDAP_TLS_MODES)[number];

/** `{group_dn, role}`; `groupDn` is canonical (see canonicalDn) or `*` for everyone who authenticates. */
export type LdapRoleMapping = { readonly groupDn: string; readonly role: AssignableRole };

/** LDAP login, from the `SERVICE_LDAP_*` variables (checked by ops/config/ldapConfig.ts). */
export type LdapSettings = {
  /** Tried in order: an unreachable host or a timeout moves on to the next one. */
  readonly hosts: readonly string[];
  readonly port: number;
  readonly tlsMode: LdapTlsMode;
  readonly tlsVerify: boolean;
  /** PEM file paths, read when connecting. */
  readonly tlsCaCertFile: string | null;
  readonly tlsClientCertFile: string | null;
  readonly tlsClientKeyFile: string | null;
  /** Service account; both null = anonymous bind for the searches. */
  readonly bindDn: string | null;
  readonly bindPassword: string | null;
  readonly userSearchBaseDns: readonly string[];
  /** Holds `%s`, replaced by the RFC 4515-escaped username. */
  readonly userSearchFilter: string;
  /** null = no-email mode (users are identified by `attrUniqueId`). */
  readonly attrEmail: string | null;
  readonly attrDisplayName: string | null;
  readonly attrMemberOf: string | null;
  readonly attrUniqueId: string | null;
  readonly groupSearchBaseDns: readonly string[];
  /** null = read `attrMemberOf` from the user entry; set = search groups with `%s` replaced. */
  readonly groupSearchFilter: string | null;
  /** User attribute whose value replaces `%s` in the group filter; null = the login username. */
  readonly groupSearchFilterUserAttr: string | null;
  /** First match wins. */
  readonly groupRoleMappings: readonly LdapRoleMapping[];
  readonly allowSignUp: boolean;
};
