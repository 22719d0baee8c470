import type { DomainEvent } from '../decider.ts';

export type FilterSubject = 'span' | 'trace' | 'session';

/** A named filter of a project's Traces, Spans or Sessions list: saved anew under a name it replaces. */
export type SavedFilterSaved = DomainEvent<
  'SavedFilterSaved',
  {
    readonly filterId: string;
    readonly projectId: string;
    readonly name: string;
    readonly subject: FilterSubject;
    /** The filter language's text (may be empty when only `search` is set). */
    readonly condition: string;
    readonly search: string;
  }
>;

export type SavedFilterDeleted = DomainEvent<
  'SavedFilterDeleted',
  { readonly filterId: string; readonly projectId: string; readonly name: string }
>;

export type SavedFilterEvent = SavedFilterSaved | SavedFilterDeleted;
