import { test } from 'uvu';
import type { ProjectEvent } from '../../../domain/projects/events.ts';
import { projectDecider } from '../../../domain/projects/projectDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(projectDecider);
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId: 'p1', name: 'shop', description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
};
const deleted: ProjectEvent = { type: 'ProjectDeleted', data: { projectId: 'p1', name: 'shop' } };

test('given no project, when created, then ProjectCreated with Phoenix default colours', () => {
  spec.given([]).when({ type: 'CreateProject', projectId: 'p1', name: 'shop', description: null }).then([created]);
});

test('given a project, when created again, then project_exists; with ifAbsent, nothing', () => {
  spec.given([created]).when({ type: 'CreateProject', projectId: 'p2', name: 'shop', description: null }).thenThrows('project_exists');
  spec.given([created]).when({ type: 'CreateProject', projectId: 'p2', name: 'shop', description: null, ifAbsent: true }).then([]);
});

test('given a deleted project, when its name is created again, then a new project (new id)', () => {
  spec
    .given([created, deleted])
    .when({ type: 'CreateProject', projectId: 'p2', name: 'shop', description: 'again', gradientStartColor: '#000000' })
    .then([
      {
        type: 'ProjectCreated',
        data: { projectId: 'p2', name: 'shop', description: 'again', gradientStartColor: '#000000', gradientEndColor: '#1c76fc' },
      },
    ]);
});

test('a name Postgres cannot store or index is refused, not cut: NUL, a lone surrogate, over 1,024 bytes', () => {
  for (const name of ['a\u0000b', 'a\ud800b', 'n'.repeat(1025), 'é'.repeat(513)]) {
    spec.given([]).when({ type: 'CreateProject', projectId: 'p1', name, description: null }).thenThrows('invalid_project_name');
  }
  spec.given([]).when({ type: 'CreateProject', projectId: 'p1', name: 'shop', description: 'd\u0000' }).thenThrows('invalid_description');
  spec
    .given([created])
    .when({ type: 'UpdateProject', projectId: 'p1', description: 'x'.repeat(70_000) })
    .thenThrows('invalid_description');
});

test('a blank name or a malformed colour is refused', () => {
  spec.given([]).when({ type: 'CreateProject', projectId: 'p1', name: '  ', description: null }).thenThrows('invalid_project_name');
  spec
    .given([])
    .when({ type: 'CreateProject', projectId: 'p1', name: 'x', description: null, gradientEndColor: 'blue' })
    .thenThrows('invalid_color');
  spec.given([created]).when({ type: 'UpdateProject', projectId: 'p1', gradientStartColor: '#12345' }).thenThrows('invalid_color');
});

test('given a project, when updated, then only what changed; nothing when nothing changes', () => {
  spec
    .given([created])
    .when({ type: 'UpdateProject', projectId: 'p1', description: 'new', gradientStartColor: '#5bdbff', gradientEndColor: '#000000' })
    .then([{ type: 'ProjectUpdated', data: { projectId: 'p1', description: 'new', gradientEndColor: '#000000' } }]);
  spec.given([created]).when({ type: 'UpdateProject', projectId: 'p1', description: null }).then([]);
  spec.given([created]).when({ type: 'UpdateProject', projectId: 'p1' }).then([]);
});

test('an update or deletion of a deleted or re-created project is not_found', () => {
  spec.given([created, deleted]).when({ type: 'UpdateProject', projectId: 'p1', description: 'x' }).thenThrows('project_not_found');
  spec.given([created]).when({ type: 'DeleteProject', projectId: 'other', defaultProjectName: 'default' }).thenThrows('project_not_found');
  spec.given([]).when({ type: 'DeleteProject', projectId: 'p1', defaultProjectName: 'default' }).thenThrows('project_not_found');
});

test('given a project, when deleted, then ProjectDeleted; the default project cannot be deleted', () => {
  spec.given([created]).when({ type: 'DeleteProject', projectId: 'p1', defaultProjectName: 'default' }).then([deleted]);
  spec.given([created]).when({ type: 'DeleteProject', projectId: 'p1', defaultProjectName: 'shop' }).thenThrows('default_project');
});

test('given a project, when restricted, then ProjectRestrictionSet; opening it again is a second event; the same value is nothing', () => {
  const restricted: ProjectEvent = { type: 'ProjectRestrictionSet', data: { projectId: 'p1', restricted: true } };
  spec.given([created]).when({ type: 'UpdateProject', projectId: 'p1', restricted: true }).then([restricted]);
  spec.given([created]).when({ type: 'UpdateProject', projectId: 'p1', restricted: false }).then([]);
  spec
    .given([created, restricted])
    .when({ type: 'UpdateProject', projectId: 'p1', restricted: false, description: 'd' })
    .then([
      { type: 'ProjectUpdated', data: { projectId: 'p1', description: 'd' } },
      { type: 'ProjectRestrictionSet', data: { projectId: 'p1', restricted: false } },
    ]);
});

test('given a project, when a user is granted a role, then ProjectGrantSet; an unknown role is invalid_role; the same role again is nothing', () => {
  const granted: ProjectEvent = { type: 'ProjectGrantSet', data: { projectId: 'p1', userId: 'u1', role: 'ANNOTATOR' } };
  spec.given([created]).when({ type: 'SetProjectGrant', projectId: 'p1', userId: 'u1', role: 'ANNOTATOR' }).then([granted]);
  spec.given([created, granted]).when({ type: 'SetProjectGrant', projectId: 'p1', userId: 'u1', role: 'ANNOTATOR' }).then([]);
  spec
    .given([created, granted])
    .when({ type: 'SetProjectGrant', projectId: 'p1', userId: 'u1', role: 'MEMBER' })
    .then([{ type: 'ProjectGrantSet', data: { projectId: 'p1', userId: 'u1', role: 'MEMBER' } }]);
  for (const role of ['ADMIN', 'annotator', 'OWNER', ''])
    spec.given([created]).when({ type: 'SetProjectGrant', projectId: 'p1', userId: 'u1', role }).thenThrows('invalid_role');
  spec
    .given([created, deleted])
    .when({ type: 'SetProjectGrant', projectId: 'p1', userId: 'u1', role: 'VIEWER' })
    .thenThrows('project_not_found');
});

test('given a grant, when revoked, then ProjectGrantRevoked; revoking what is not granted is grant_not_found', () => {
  const granted: ProjectEvent = { type: 'ProjectGrantSet', data: { projectId: 'p1', userId: 'u1', role: 'VIEWER' } };
  const revoked: ProjectEvent = { type: 'ProjectGrantRevoked', data: { projectId: 'p1', userId: 'u1' } };
  spec.given([created, granted]).when({ type: 'RevokeProjectGrant', projectId: 'p1', userId: 'u1' }).then([revoked]);
  spec.given([created, granted, revoked]).when({ type: 'RevokeProjectGrant', projectId: 'p1', userId: 'u1' }).thenThrows('grant_not_found');
  spec.given([created]).when({ type: 'RevokeProjectGrant', projectId: 'p1', userId: 'u2' }).thenThrows('grant_not_found');
});

test.run();
