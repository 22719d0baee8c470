export type ActiveProject = {
  readonly status: 'active';
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
};

export type ProjectState =
  | { readonly status: 'absent' }
  | ActiveProject
  | { readonly status: 'deleted'; readonly projectId: string; readonly name: string };
