import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { can } from '../../../domain/access/can.ts';
import type { Permission } from '../../../domain/access/permissions.ts';
import { ALL_PERMISSIONS } from '../../../domain/access/permissions.ts';
import type { Principal } from '../../../domain/access/principal.ts';
import { isAdmin } from '../../../domain/access/principal.ts';

const PRINCIPALS = {
  anonymous: { kind: 'anonymous' },
  viewer: { kind: 'user', userId: 'v', role: 'VIEWER' },
  member: { kind: 'user', userId: 'm', role: 'MEMBER' },
  admin: { kind: 'user', userId: 'a', role: 'ADMIN' },
  viewerKey: { kind: 'apiKey', keyId: 'k1', keyKind: 'user', userId: 'v', role: 'VIEWER' },
  memberKey: { kind: 'apiKey', keyId: 'k2', keyKind: 'user', userId: 'm', role: 'MEMBER' },
  adminKey: { kind: 'apiKey', keyId: 'k3', keyKind: 'user', userId: 'a', role: 'ADMIN' },
  systemKey: { kind: 'apiKey', keyId: 'k4', keyKind: 'system', userId: 'sys', role: 'SYSTEM' },
  adminSecret: { kind: 'adminSecret', userId: 'sys' },
} as const satisfies Record<string, Principal>;

type Who = keyof typeof PRINCIPALS;
const WHO = Object.keys(PRINCIPALS) as Who[];

/**
 * The seed's tables (docs/reference/seed.md, "Roles and permissions"), principal by principal. A row lists who may; everyone else may not.
 * (anonymous = auth disabled: open, except credential management.)
 */
const EXPECTED: Record<Permission, readonly Who[]> = {
  read: WHO,
  write: ['anonymous', 'member', 'admin', 'memberKey', 'adminKey', 'systemKey', 'adminSecret'],
  ingest: ['anonymous', 'member', 'admin', 'memberKey', 'adminKey', 'systemKey', 'adminSecret'],
  annotate: ['anonymous', 'member', 'admin', 'memberKey', 'adminKey', 'systemKey', 'adminSecret'],
  'telemetry.delete': ['anonymous', 'member', 'admin', 'memberKey', 'adminKey', 'systemKey', 'adminSecret'],
  'users.manage': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'users.self': ['viewer', 'member', 'admin', 'viewerKey', 'memberKey', 'adminKey'],
  'projects.manage': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'retention.manage': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'prices.manage': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'audit.read': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'secrets.manage': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'playground.secrets': ['anonymous', 'admin', 'adminKey', 'adminSecret'],
  'apikeys.own.list': ['viewer', 'member', 'admin', 'viewerKey', 'memberKey', 'adminKey', 'systemKey', 'adminSecret'],
  'apikeys.own.create': ['viewer', 'member', 'admin'],
  'apikeys.own.delete': ['viewer', 'member', 'admin', 'viewerKey', 'memberKey', 'adminKey', 'adminSecret'],
  'apikeys.users.manage': ['admin', 'adminKey', 'adminSecret'],
  'apikeys.system.manage': ['admin', 'adminKey', 'adminSecret'],
  'apikeys.system.create': ['admin', 'adminSecret'],
};

test('every permission against every kind of principal', () => {
  for (const permission of ALL_PERMISSIONS) {
    const allowed = WHO.filter((who) => can(PRINCIPALS[who], permission));
    assert.equal(allowed, [...EXPECTED[permission]], permission);
  }
});

test('nobody identified, with auth on, may do anything', () => {
  for (const permission of ALL_PERMISSIONS) assert.not.ok(can(null, permission), permission);
});

test('a key acts with its owner’s role: demoting the owner demotes the key', () => {
  assert.ok(can({ kind: 'apiKey', keyId: 'k', keyKind: 'user', userId: 'u', role: 'MEMBER' }, 'write'));
  assert.not.ok(can({ kind: 'apiKey', keyId: 'k', keyKind: 'user', userId: 'u', role: 'VIEWER' }, 'write'));
});

test('admin power is role ADMIN or the admin secret, never a system key', () => {
  assert.equal(
    WHO.filter((who) => isAdmin(PRINCIPALS[who])),
    ['admin', 'adminKey', 'adminSecret'],
  );
});

test.run();
