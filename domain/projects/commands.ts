export type CreateProject = {
  readonly type: 'CreateProject';
  /** Chosen by the caller (a fresh uuid), so a retried decision keeps the same id. */
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly gradientStartColor?: string;
  readonly gradientEndColor?: string;
  /** Ingest creates projects on first use: an existing project is then fine, not a conflict. */
  readonly ifAbsent?: boolean;
};

/** `undefined` leaves a field as it is; `description: null` clears it. */
export type UpdateProject = {
  readonly type: 'UpdateProject';
  readonly projectId: string;
  readonly description?: string | null;
  readonly gradientStartColor?: string;
  readonly gradientEndColor?: string;
  /** Restricted: only admins, system keys and users with a grant see it (see ProjectRestrictionSet). */
  readonly restricted?: boolean;
};

export type DeleteProject = {
  readonly type: 'DeleteProject';
  readonly projectId: string;
  /** The project spans go to when nothing names one (`SERVICE_PROJECT_NAME`): never deleted. */
  readonly defaultProjectName: string;
};

/** `role` is checked by the decider (unknown → invalid_role); the user's existence by the caller. */
export type SetProjectGrant = {
  readonly type: 'SetProjectGrant';
  readonly projectId: string;
  readonly userId: string;
  readonly role: string;
};

export type RevokeProjectGrant = { readonly type: 'RevokeProjectGrant'; readonly projectId: string; readonly userId: string };

export type ProjectCommand = CreateProject | UpdateProject | DeleteProject | SetProjectGrant | RevokeProjectGrant;
