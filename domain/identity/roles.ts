/** SYSTEM is internal: held only by the system user and by system API keys, never assignable. */
export const ROLES = ['SYSTEM', 'ADMIN', 'MEMBER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const ASSIGNABLE_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const satisfies readonly Role[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Role names arrive in any case (`admin`, `Admin`); stored upper case. SYSTEM is not accepted. */
export const parseAssignableRole = (input: string): AssignableRole | null => {
  const upper = input.trim().toUpperCase();
  return (ASSIGNABLE_ROLES as readonly string[]).includes(upper) ? (upper as AssignableRole) : null;
};
