import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { MAX_FILTER_LENGTH, parseFilter } from '../filters/filterSyntax.ts';
import { storableText } from '../base/storableText.ts';
import type { SavedFilterCommand } from './commands.ts';
import type { SavedFilterEvent, SavedFilterSaved } from './events.ts';

/** Names are short labels in a menu; a project keeps a bounded number of them. */
export const SAVED_FILTER_NAME_MAX = 100;
export const SAVED_FILTERS_PER_PROJECT = 100;
const SUBJECTS = ['span', 'trace', 'session'] as const;

/** A project's saved filters by id. */
export type SavedFilterState = ReadonlyMap<string, SavedFilterSaved['data']>;

const checkText = (field: string, value: string, max: number): void => {
  if (storableText(value) !== value)
    throw new DomainError(`invalid_${field}`, `${field} must not contain NUL characters or unpaired UTF-16 surrogates`);
  if (value.length > max) throw new DomainError(`invalid_${field}`, `${field} must be at most ${max} characters`);
};

const decide = (c: SavedFilterCommand, state: SavedFilterState): SavedFilterEvent[] => {
  switch (c.type) {
    case 'SaveFilter': {
      const name = c.name.trim();
      if (name === '') throw new DomainError('invalid_name', 'name must not be empty');
      checkText('name', name, SAVED_FILTER_NAME_MAX);
      if (!(SUBJECTS as readonly string[]).includes(c.subject))
        throw new DomainError('invalid_subject', `subject must be one of ${SUBJECTS.join(', ')}`);
      const condition = c.condition.trim();
      const search = c.search.trim();
      if (condition === '' && search === '') throw new DomainError('invalid_condition', 'a saved filter needs a condition or a search');
      checkText('condition', condition, MAX_FILTER_LENGTH);
      checkText('search', search, 500);
      // A filter that cannot be read is refused here too (the FilterError names the position).
      if (condition !== '') parseFilter(condition);
      const same = [...state.values()].find((f) => f.name === name && f.subject === c.subject);
      if (same === undefined && state.size >= SAVED_FILTERS_PER_PROJECT) {
        throw new DomainError('too_many_saved_filters', `a project keeps at most ${SAVED_FILTERS_PER_PROJECT} saved filters`);
      }
      const data = { filterId: same?.filterId ?? c.filterId, projectId: c.projectId, name, subject: c.subject, condition, search };
      if (same !== undefined && same.condition === condition && same.search === search) return [];
      return [{ type: 'SavedFilterSaved', data }];
    }
    case 'DeleteSavedFilter': {
      const saved = state.get(c.filterId);
      if (saved === undefined) throw new DomainError('saved_filter_not_found', `Saved filter not found: ${c.filterId}`, 'not_found');
      return [{ type: 'SavedFilterDeleted', data: { filterId: saved.filterId, projectId: saved.projectId, name: saved.name } }];
    }
  }
};

const evolve = (state: SavedFilterState, event: SavedFilterEvent): SavedFilterState => {
  const next = new Map(state);
  if (event.type === 'SavedFilterSaved') next.set(event.data.filterId, event.data);
  else next.delete(event.data.filterId);
  return next;
};

export const savedFilterDecider: Decider<SavedFilterState, SavedFilterCommand, SavedFilterEvent> = {
  initialState: () => new Map(),
  evolve,
  decide,
};
