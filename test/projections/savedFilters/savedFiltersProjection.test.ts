import { test } from 'uvu';
import type { ProjectDeleted } from '../../../domain/projects/events.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import type { SavedFilterDeleted, SavedFilterSaved } from '../../../domain/savedFilters/events.ts';
import { savedFilterStream } from '../../../domain/savedFilters/savedFilterStream.ts';
import { listSavedFilters } from '../../../projections/savedFilters/savedFilterQueries.ts';
import { savedFiltersProjection } from '../../../projections/savedFilters/savedFiltersProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const spec = projectionSpec(savedFiltersProjection);
const P = '00000000-0000-4000-8000-000000000001';
const Q = '00000000-0000-4000-8000-000000000002';
const saved = (
  filterId: string,
  projectId: string,
  name: string,
  condition: string,
  subject: 'span' | 'trace' = 'span',
): SavedFilterSaved => ({
  type: 'SavedFilterSaved',
  data: { filterId, projectId, name, subject, condition, search: '' },
});
const row = (filterId: string, projectId: string, name: string, condition: string, subject: 'span' | 'trace' = 'span') => ({
  filter_id: filterId,
  project_id: projectId,
  name,
  subject,
  condition,
  search: '',
});

test('given saves, then the project lists them most recently saved first; a save again replaces in place', async () => {
  await spec
    .given(
      inStream(savedFilterStream(P), saved('a', P, 'errors', "status_code == 'ERROR'"), saved('b', P, 'slow', 'latency_ms > 5000')),
      inStream(savedFilterStream(P), saved('a', P, 'errors', "not (status_code == 'OK')")),
      inStream(savedFilterStream(Q), saved('c', Q, 'other', 'latency_ms > 1')),
    )
    .then(
      (db) => listSavedFilters(db, P, null),
      [row('a', P, 'errors', "not (status_code == 'OK')"), row('b', P, 'slow', 'latency_ms > 5000')],
    );
});

test('given a list per subject, then each list sees its own', async () => {
  await spec
    .given(inStream(savedFilterStream(P), saved('a', P, 'x', 'latency_ms > 1'), saved('b', P, 'x', 'span_count > 2', 'trace')))
    .then((db) => listSavedFilters(db, P, 'trace'), [row('b', P, 'x', 'span_count > 2', 'trace')]);
});

test('given a deleted filter and a deleted project, then neither lists anything', async () => {
  const deleted: SavedFilterDeleted = { type: 'SavedFilterDeleted', data: { filterId: 'a', projectId: P, name: 'x' } };
  const projectGone: ProjectDeleted = { type: 'ProjectDeleted', data: { projectId: Q, name: 'q' } };
  await spec
    .given(
      inStream(savedFilterStream(P), saved('a', P, 'x', 'latency_ms > 1'), deleted),
      inStream(savedFilterStream(Q), saved('c', Q, 'other', 'latency_ms > 1')),
      inStream(projectStream('q'), projectGone),
    )
    .then(async (db) => [...(await listSavedFilters(db, P, null)), ...(await listSavedFilters(db, Q, null))], []);
});

test.run();
