export const AUTH_METHODS = ['LOCAL', 'OAUTH2', 'LDAP'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
