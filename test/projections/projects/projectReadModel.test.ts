import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProjectCreated, ProjectDeleted, ProjectEvent, ProjectUpdated } from '../../../domain/projects/events.ts';
import { listProjectGrants, restrictedProjectsFor } from '../../../projections/projects/projectAccessQueries.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { findProjectByName, listProjects } from '../../../projections/projects/projectQueries.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const spec = projectionSpec(tracingProjection);

// Project ids are uuids (the read model stores them as such).

const created = (projectId: string, name: string): ProjectCreated => ({
  type: 'ProjectCreated',
  data: { projectId, name, description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
});
const shop = inStream(projectStream('shop'), created('00000000-0000-4000-8000-000000000001', 'shop'));
// The experiments' tables are not this read model's: the list here includes what they would hide.
const names = { limit: 10, cursor: null, nameContains: null, includeExperimentProjects: true } as const;
const namesOf = (rows: readonly { readonly name: string }[]) => rows.map((r) => r.name);

test('given a created project, then its row holds the name, description and colours', async () => {
  await spec.given(shop).thenMatches(
    (db) => findProjectByName(db, 'shop'),
    (row) => {
      assert.ok(row);
      assert.equal(
        { ...row, id: 0 },
        {
          id: 0,
          project_id: '00000000-0000-4000-8000-000000000001',
          name: 'shop',
          description: null,
          gradient_start_color: '#5bdbff',
          gradient_end_color: '#1c76fc',
          restricted: false,
        },
      );
    },
  );
});

test('given an update of some fields, then only those change', async () => {
  const updated: ProjectUpdated = {
    type: 'ProjectUpdated',
    data: { projectId: '00000000-0000-4000-8000-000000000001', gradientEndColor: '#000000' },
  };
  await spec.given(shop, inStream(projectStream('shop'), updated)).thenMatches(
    (db) => findProjectByName(db, 'shop'),
    (row) => {
      assert.is(row?.gradient_start_color, '#5bdbff');
      assert.is(row?.gradient_end_color, '#000000');
      assert.is(row?.description, null);
    },
  );
});

test('given a project deleted and its name created again, then one project of that name: the new one', async () => {
  const deleted: ProjectDeleted = { type: 'ProjectDeleted', data: { projectId: '00000000-0000-4000-8000-000000000001', name: 'shop' } };
  await spec
    .given(shop, inStream(projectStream('shop'), deleted, created('00000000-0000-4000-8000-000000000012', 'shop')))
    .then(async (db) => (await findProjectByName(db, 'shop'))?.project_id, '00000000-0000-4000-8000-000000000012');
});

test('given three projects, then the list is newest first and filters by name, ignoring case', async () => {
  const history = [
    shop,
    inStream(projectStream('Shop-EU'), created('00000000-0000-4000-8000-000000000002', 'Shop-EU')),
    inStream(projectStream('docs'), created('00000000-0000-4000-8000-000000000003', 'docs')),
  ];
  await spec.given(...history).then(async (db) => namesOf(await listProjects(db, names)), ['docs', 'Shop-EU', 'shop']);
  await spec.given(...history).then(async (db) => namesOf(await listProjects(db, { ...names, nameContains: 'SHOP' })), ['Shop-EU', 'shop']);
});

test('given a restricted project with grants set, changed and revoked, then the caller-side reads see the last of each; deletion drops them', async () => {
  const p = '00000000-0000-4000-8000-000000000001';
  const access: ProjectEvent[] = [
    { type: 'ProjectRestrictionSet', data: { projectId: p, restricted: true } },
    { type: 'ProjectGrantSet', data: { projectId: p, userId: 'u1', role: 'VIEWER' } },
    { type: 'ProjectGrantSet', data: { projectId: p, userId: 'u2', role: 'MEMBER' } },
    { type: 'ProjectGrantSet', data: { projectId: p, userId: 'u1', role: 'ANNOTATOR' } },
    { type: 'ProjectGrantRevoked', data: { projectId: p, userId: 'u2' } },
  ];
  const given = [shop, inStream(projectStream('shop'), ...access)];
  await spec.given(...given).then(async (db) => (await restrictedProjectsFor(db, 'u1')).map((r) => r.role), ['ANNOTATOR']);
  await spec.given(...given).then(async (db) => (await restrictedProjectsFor(db, 'u2')).map((r) => r.role), [null]);
  await spec.given(...given).then(async (db) => (await findProjectByName(db, 'shop'))?.restricted, true);
  const deleted: ProjectDeleted = { type: 'ProjectDeleted', data: { projectId: p, name: 'shop' } };
  await spec
    .given(shop, inStream(projectStream('shop'), ...access, deleted))
    .then(async (db) => ({ restricted: await restrictedProjectsFor(db, 'u1'), grants: await listProjectGrants(db, 1) }), {
      restricted: [],
      grants: [],
    });
});

test.run();
