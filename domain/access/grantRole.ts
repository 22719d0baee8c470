/**
 * A user's role on one restricted project, granted by an admin. On a restricted project it is
 * the user's role there whatever their global role (a global viewer with a MEMBER grant ingests
 * into it; a global member with a VIEWER grant only reads it). ANNOTATOR exists only here: it
 * reads and writes annotations and notes, nothing else.
 */
export const GRANT_ROLES = ['VIEWER', 'ANNOTATOR', 'MEMBER'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

/** Exactly one of GRANT_ROLES, as sent (role names are upper case in every answer). */
export const isGrantRole = (value: unknown): value is GrantRole => (GRANT_ROLES as readonly unknown[]).includes(value);
