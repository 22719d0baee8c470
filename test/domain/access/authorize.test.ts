import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { authorize } from '../../../domain/access/authorize.ts';

test('allowed', () => {
  assert.equal(authorize({ kind: 'user', userId: 'a', role: 'ADMIN' }, 'users.manage'), { allowed: true });
});

test('nobody identified is 401, before any role question', () => {
  assert.equal(authorize(null, 'read'), { allowed: false, status: 401, code: 'unauthenticated', message: 'Invalid token' });
});

test('each refusal says why, with the texts clients know', () => {
  const viewer = { kind: 'user', userId: 'v', role: 'VIEWER' } as const;
  const member = { kind: 'user', userId: 'm', role: 'MEMBER' } as const;
  const systemKey = { kind: 'apiKey', keyId: 'k', keyKind: 'system', userId: 's', role: 'SYSTEM' } as const;
  const adminKey = { kind: 'apiKey', keyId: 'k', keyKind: 'user', userId: 'a', role: 'ADMIN' } as const;
  const cases = [
    [authorize(viewer, 'write'), 403, 'viewer_forbidden', 'Viewers cannot perform this action.'],
    [authorize(member, 'users.manage'), 403, 'admin_required', 'Only admin or system users can perform this action.'],
    [authorize(viewer, 'secrets.manage'), 403, 'admin_required', 'Only admin or system users can perform this action.'],
    [authorize(systemKey, 'users.manage'), 403, 'admin_required', 'Only admin or system users can perform this action.'],
    [authorize(adminKey, 'apikeys.own.create'), 403, 'api_key_forbidden', 'API keys cannot create API keys'],
    [authorize(adminKey, 'apikeys.system.create'), 403, 'api_key_forbidden', 'API keys cannot create API keys'],
    [
      authorize(systemKey, 'apikeys.own.delete'),
      403,
      'system_key_forbidden',
      'System API keys must be managed through the /system/api_keys endpoints.',
    ],
    [
      authorize({ kind: 'adminSecret', userId: 's' }, 'apikeys.own.create'),
      403,
      'admin_secret_forbidden',
      'The admin secret cannot perform this action.',
    ],
    [
      authorize({ kind: 'anonymous' }, 'apikeys.own.list'),
      403,
      'auth_disabled',
      'This action requires authentication to be enabled. Set the SERVICE_ENABLE_AUTH environment variable to true.',
    ],
  ] as const;
  for (const [decision, status, code, message] of cases) assert.equal(decision, { allowed: false, status, code, message }, code);
});

test.run();
