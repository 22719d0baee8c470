import type { GrantRole } from '../access/grantRole.ts';

export type ActiveProject = {
  readonly status: 'active';
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
  /** See ProjectRestrictionSet: false for every project until an admin restricts it. */
  readonly restricted: boolean;
  /** userId → role on this project; kept while the project is open, used once it is restricted. */
  readonly grants: Readonly<Record<string, GrantRole>>;
};

export type ProjectState =
  | { readonly status: 'absent' }
  | ActiveProject
  | { readonly status: 'deleted'; readonly projectId: string; readonly name: string };
