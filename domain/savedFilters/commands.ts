import type { FilterSubject } from './events.ts';

export type SaveFilter = {
  readonly type: 'SaveFilter';
  /** Chosen by the caller (a fresh uuid); a name saved again keeps its first id. */
  readonly filterId: string;
  readonly projectId: string;
  readonly name: string;
  readonly subject: FilterSubject;
  readonly condition: string;
  readonly search: string;
};

export type DeleteSavedFilter = { readonly type: 'DeleteSavedFilter'; readonly projectId: string; readonly filterId: string };

export type SavedFilterCommand = SaveFilter | DeleteSavedFilter;
