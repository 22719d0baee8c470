import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FilterError } from '../../../domain/filters/filterSyntax.ts';
import type { SaveFilter } from '../../../domain/savedFilters/commands.ts';
import type { SavedFilterSaved } from '../../../domain/savedFilters/events.ts';
import { SAVED_FILTERS_PER_PROJECT, savedFilterDecider } from '../../../domain/savedFilters/savedFilterDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(savedFilterDecider);
const P = '7f1c2c4e-0000-4000-8000-000000000001';
const save = (over: Partial<SaveFilter> = {}): SaveFilter => ({
  type: 'SaveFilter',
  filterId: 'f-1',
  projectId: P,
  name: 'slow LLM calls',
  subject: 'span',
  condition: "span_kind == 'LLM' and latency_ms > 5000",
  search: '',
  ...over,
});
const saved = (over: Partial<SavedFilterSaved['data']> = {}): SavedFilterSaved => ({
  type: 'SavedFilterSaved',
  data: {
    filterId: 'f-1',
    projectId: P,
    name: 'slow LLM calls',
    subject: 'span',
    condition: "span_kind == 'LLM' and latency_ms > 5000",
    search: '',
    ...over,
  },
});

test('given no filters, when one is saved, then it is saved with its name trimmed', () => {
  spec
    .given([])
    .when(save({ name: '  slow LLM calls ' }))
    .then([saved()]);
});

test('given a saved name, when it is saved again with another condition, then it keeps its first id; the same filter again is no change', () => {
  spec
    .given([saved()])
    .when(save({ filterId: 'f-2', condition: 'latency_ms > 1' }))
    .then([saved({ condition: 'latency_ms > 1' })]);
  spec
    .given([saved()])
    .when(save({ filterId: 'f-2' }))
    .then([]);
});

test('the same name on another list is another filter', () => {
  spec
    .given([saved()])
    .when(save({ filterId: 'f-2', subject: 'trace' }))
    .then([saved({ filterId: 'f-2', subject: 'trace' })]);
});

test('refused: an empty name, nothing to filter by, a condition that cannot be read, too many filters', () => {
  spec
    .given([])
    .when(save({ name: ' ' }))
    .thenThrows('invalid_name');
  spec
    .given([])
    .when(save({ condition: '', search: ' ' }))
    .thenThrows('invalid_condition');
  spec
    .given([])
    .when(save({ name: 'x'.repeat(101) }))
    .thenThrows('invalid_name');
  assert.throws(
    () => savedFilterDecider.decide(save({ condition: 'latency_ms >' }), savedFilterDecider.initialState()),
    (e: unknown) => e instanceof FilterError && e.position === 12,
  );
  const many = Array.from({ length: SAVED_FILTERS_PER_PROJECT }, (_, i) => saved({ filterId: `f${i}`, name: `n${i}` }));
  spec
    .given(many)
    .when(save({ filterId: 'new', name: 'one more' }))
    .thenThrows('too_many_saved_filters');
});

test('given a saved filter, when it is deleted, then it is gone; an unknown id is not found', () => {
  spec
    .given([saved()])
    .when({ type: 'DeleteSavedFilter', projectId: P, filterId: 'f-1' })
    .then([{ type: 'SavedFilterDeleted', data: { filterId: 'f-1', projectId: P, name: 'slow LLM calls' } }]);
  spec.given([]).when({ type: 'DeleteSavedFilter', projectId: P, filterId: 'nope' }).thenThrows('saved_filter_not_found');
});

test.run();
