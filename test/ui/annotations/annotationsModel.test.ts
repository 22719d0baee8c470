import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { annotationRights, chipValue } from '../../../ui/src/lib/annotations/annotationDisplay.ts';
import {
  annotationFilterFromSearch,
  annotationFilterToSearch,
  apiAnnotationFilter,
} from '../../../ui/src/lib/annotations/annotationFilter.ts';
import type { Viewer } from '../../../ui/src/lib/identity/viewer.ts';

/**
 * The annotation UI's pure parts, without a browser: the table filter kept in the URL and who is
 * shown which write controls. annotationsFlows covers the same through the pages.
 */

const test = suite('annotations UI model');

test('the annotation filter survives the URL, numbers read as text and nonsense scores dropped', () => {
  // Given a filter as the page writes it
  const filter = { name: 'correctness', labels: ['incorrect'], minScore: 0, maxScore: 0.5 };
  const search = annotationFilterToSearch(filter);
  assert.equal(search, { annotation: 'correctness', label: 'incorrect', minScore: '0', maxScore: '0.5' });
  // Then reading it back gives the same filter, also when the router turned values into numbers
  assert.equal(annotationFilterFromSearch(search), filter);
  assert.equal(annotationFilterFromSearch({ annotation: 42, minScore: 1 }), { name: '42', labels: [], minScore: 1, maxScore: null });
  // And a score that is not a number is no bound; no name is no filter
  assert.equal(annotationFilterFromSearch({ annotation: 'x', maxScore: 'abc' })?.maxScore, null);
  assert.is(annotationFilterFromSearch({ label: 'correct' }), null);
  assert.equal(annotationFilterToSearch(null), {});
  // And the API gets only what was chosen
  assert.equal(apiAnnotationFilter({ name: 'n', labels: [], minScore: null, maxScore: 2 }), { name: 'n', maxScore: 2 });
});

const viewer = (id: string, role: Viewer['role']): Viewer => ({
  id,
  email: `${id}@x`,
  username: id,
  role,
  authMethod: 'LOCAL',
  passwordNeedsReset: false,
});

test('writers edit their own annotations; the author or an admin deletes; viewers do neither', () => {
  const mine = { userId: 'U1' };
  const theirs = { userId: 'U2' };
  const member = { authEnabled: true, canWrite: true, isAdmin: false, viewer: viewer('U1', 'MEMBER') };
  const admin = { authEnabled: true, canWrite: true, isAdmin: true, viewer: viewer('U3', 'ADMIN') };
  const reader = { authEnabled: true, canWrite: false, isAdmin: false, viewer: viewer('U1', 'VIEWER') };
  assert.equal(annotationRights(mine, member), { edit: true, remove: true });
  assert.equal(annotationRights(theirs, member), { edit: false, remove: false });
  assert.equal(annotationRights(theirs, admin), { edit: false, remove: true });
  assert.equal(annotationRights(mine, reader), { edit: false, remove: false });
  assert.equal(annotationRights({ userId: null }, { authEnabled: false, canWrite: true, isAdmin: true, viewer: null }), {
    edit: true,
    remove: true,
  });
});

test('a chip shows the label, else the score, else nothing', () => {
  assert.is(chipValue({ label: 'correct', score: 1 }), 'correct');
  assert.is(chipValue({ label: null, score: 0.12345 }), '0.123');
  assert.is(chipValue({ label: null, score: null }), '');
});

test.run();
