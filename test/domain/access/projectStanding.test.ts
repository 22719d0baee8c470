import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GrantRole } from '../../../domain/access/grantRole.ts';
import { ALL_PERMISSIONS, type Permission, PERMISSIONS } from '../../../domain/access/permissions.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { OPEN, onProject, type ProjectStanding, widenedByGrant } from '../../../domain/access/projectStanding.ts';

const viewer: Principal = { kind: 'user', userId: 'v', role: 'VIEWER' };
const member: Principal = { kind: 'user', userId: 'm', role: 'MEMBER' };
const memberKey: Principal = { kind: 'apiKey', keyId: 'k', keyKind: 'user', userId: 'm', role: 'MEMBER' };
const everyProject: Principal[] = [
  { kind: 'user', userId: 'a', role: 'ADMIN' },
  { kind: 'apiKey', keyId: 'k', keyKind: 'system', userId: 's', role: 'SYSTEM' },
  { kind: 'adminSecret', userId: 's' },
  { kind: 'anonymous' },
];
const restricted = (grant: GrantRole | null): ProjectStanding => ({ restricted: true, grant });

test('given an open project, the global table decides', () => {
  assert.is(onProject(viewer, 'read', OPEN), 'allowed');
  assert.is(onProject(viewer, 'annotate', OPEN), 'denied');
  assert.is(onProject(member, 'telemetry.delete', OPEN), 'allowed');
  assert.is(onProject(null, 'read', OPEN), 'denied');
});

test('given a restricted project and no grant, it is hidden for every permission, whatever the global role', () => {
  for (const permission of ALL_PERMISSIONS) {
    assert.is(onProject(member, permission, restricted(null)), 'hidden', permission);
    assert.is(onProject(memberKey, permission, restricted(null)), 'hidden', permission);
  }
});

test('given a restricted project, admins, system keys, the admin secret and auth-off keep their global answer', () => {
  for (const principal of everyProject)
    for (const permission of ['read', 'ingest', 'telemetry.delete'] as Permission[])
      assert.is.not(onProject(principal, permission, restricted(null)), 'hidden', `${principal.kind} ${permission}`);
});

test('given a grant, the grant role decides, not the global one: VIEWER reads, ANNOTATOR annotates, MEMBER ingests and deletes', () => {
  const table: Record<GrantRole, Permission[]> = {
    VIEWER: ['read'],
    ANNOTATOR: ['read', 'annotate'],
    MEMBER: ['read', 'write', 'ingest', 'annotate', 'telemetry.delete'],
  };
  for (const [grant, allowed] of Object.entries(table) as [GrantRole, Permission[]][]) {
    for (const principal of [viewer, member, memberKey]) {
      for (const permission of ALL_PERMISSIONS) {
        const expected = allowed.includes(permission) && (principal.kind !== 'apiKey' || PERMISSIONS[permission].apiKeys);
        assert.is(onProject(principal, permission, restricted(grant)), expected ? 'allowed' : 'denied', `${grant} ${permission}`);
      }
    }
  }
});

test('a grant widens only project-scoped permissions at the edge, for people and their keys', () => {
  assert.ok(widenedByGrant(viewer, 'ingest', ['MEMBER']));
  assert.ok(widenedByGrant(viewer, 'annotate', ['ANNOTATOR']));
  assert.not.ok(widenedByGrant(viewer, 'ingest', ['ANNOTATOR', 'VIEWER']));
  assert.not.ok(widenedByGrant(viewer, 'write', ['MEMBER']), 'write is global: a grant never widens it');
  assert.not.ok(widenedByGrant(viewer, 'projects.manage', ['MEMBER']));
  assert.not.ok(widenedByGrant(null, 'ingest', ['MEMBER']));
});

test.run();
