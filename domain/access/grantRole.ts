import { GRANT_ROLES, type GrantRole } from '../projects/events.ts';

export { GRANT_ROLES, type GrantRole };

/** Exactly one of GRANT_ROLES, as sent (role names are upper case in every answer). */
export const isGrantRole = (value: unknown): value is GrantRole => (GRANT_ROLES as readonly unknown[]).includes(value);
