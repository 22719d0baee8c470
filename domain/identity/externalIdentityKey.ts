import type { AuthMethod } from './events.ts';
import type { ExternalIds } from './userState.ts';

/**
 * The value under which an external identity is reserved for the user it is linked to (see
 * linkExternalIdentity), or null when the ids do not identify anyone: OAuth2 needs both the
 * client id and `sub`; LDAP the unique id, compared case-insensitively as the reference does.
 * A JSON array, so no id can be confused with another's parts.
 */
export const externalIdentityKey = (method: AuthMethod, ids: ExternalIds): string | null => {
  if (method === 'OAUTH2') {
    return ids.oauth2ClientId === null || ids.oauth2UserId === null
      ? null
      : JSON.stringify(['OAUTH2', ids.oauth2ClientId, ids.oauth2UserId]);
  }
  if (method === 'LDAP') return ids.ldapUniqueId === null ? null : JSON.stringify(['LDAP', ids.ldapUniqueId.toLowerCase()]);
  return null;
};
