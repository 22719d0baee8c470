import { ROLES, type Role } from './events.ts';

export { ROLES, type Role };

export const ASSIGNABLE_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const satisfies readonly Role[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Role names arrive in any case (`admin`, `Admin`); stored upper case. SYSTEM is not accepted. */
export const parseAssignableRole = (input: string): AssignableRole | null => {
  const upper = input.trim().toUpperCase();
  return (ASSIGNABLE_ROLES as readonly string[]).includes(upper) ? (upper as AssignableRole) : null;
};
