import { test } from 'uvu';
import type { IssueApiKey, RevokeApiKey } from '../../../domain/apiKeys/apiKeyDecider.ts';
import { apiKeyDecider } from '../../../domain/apiKeys/apiKeyDecider.ts';
import { generateApiKey } from '../../../domain/apiKeys/apiKeyValue.ts';
import type { ApiKeyEvent } from '../../../domain/apiKeys/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { t } from '../identity/fixtures.ts';

const { given } = deciderSpec(apiKeyDecider);
const { keyHash } = generateApiKey('k1');

const issueUserKey = (change: Partial<IssueApiKey> = {}): IssueApiKey => ({
  type: 'IssueApiKey',
  keyId: 'k1',
  kind: 'user',
  ownerUserId: 'u1',
  createdBy: 'u1',
  name: ' ci ',
  description: null,
  expiresAt: null,
  keyHash,
  now: t(0),
  ...change,
});

const userKeyIssued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: {
    keyId: 'k1',
    kind: 'user',
    ownerUserId: 'u1',
    createdBy: 'u1',
    name: 'ci',
    description: null,
    expiresAt: null,
    keyHash,
    at: t(0),
  },
};
const systemKeyIssued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: { ...userKeyIssued.data, kind: 'system', ownerUserId: null, createdBy: 'admin1' },
} as ApiKeyEvent;

const revoke = (kind: 'user' | 'system', requester: RevokeApiKey['requester']): RevokeApiKey => ({
  type: 'RevokeApiKey',
  keyId: 'k1',
  kind,
  requester,
  reason: 'deleted',
  now: t(5),
});

const revoked = (kind: 'user' | 'system', ownerUserId: string | null): ApiKeyEvent => ({
  type: 'ApiKeyRevoked',
  data: { keyId: 'k1', kind, ownerUserId, reason: 'deleted', at: t(5) },
});

test('a user key is issued with its name trimmed and only the hash of the key', () => {
  given([]).when(issueUserKey()).then([userKeyIssued]);
});

test('a system key has no owner; a user key must have one', () => {
  given([])
    .when(issueUserKey({ kind: 'system', ownerUserId: null, createdBy: 'admin1' }))
    .then([systemKeyIssued]);
  given([])
    .when(issueUserKey({ kind: 'system' }))
    .thenThrows('api_key_owner_invalid');
  given([])
    .when(issueUserKey({ ownerUserId: null }))
    .thenThrows('api_key_owner_invalid');
});

test('a key needs a name and a future expiry', () => {
  given([])
    .when(issueUserKey({ name: '  ' }))
    .thenThrows('api_key_name_required');
  given([])
    .when(issueUserKey({ expiresAt: t(0) }))
    .thenThrows('api_key_expiry_past');
  given([])
    .when(issueUserKey({ expiresAt: t(-1) }))
    .thenThrows('api_key_expiry_past');
});

test('a key id is issued once', () => {
  given([userKeyIssued]).when(issueUserKey()).thenThrows('api_key_exists');
});

test('the key itself is refused where its hash belongs', () => {
  given([])
    .when(issueUserKey({ keyHash: generateApiKey('k1').value }))
    .thenThrows('api_key_hash_invalid');
});

test('the owner or an admin revokes a user key', () => {
  given([userKeyIssued])
    .when(revoke('user', { userId: 'u1', isAdmin: false }))
    .then([revoked('user', 'u1')]);
  given([userKeyIssued])
    .when(revoke('user', { userId: 'admin1', isAdmin: true }))
    .then([revoked('user', 'u1')]);
});

test('someone else’s user key is "not found", not "forbidden"', () => {
  given([userKeyIssued])
    .when(revoke('user', { userId: 'u2', isAdmin: false }))
    .thenThrows('api_key_not_found');
});

test('only admins revoke system keys, which outlive their creator', () => {
  given([systemKeyIssued])
    .when(revoke('system', { userId: 'admin2', isAdmin: true }))
    .then([revoked('system', null)]);
  given([systemKeyIssued])
    .when(revoke('system', { userId: 'admin1', isAdmin: false }))
    .thenThrows('api_key_not_found');
});

test('a key of the other kind, a missing key and a revoked key are not found', () => {
  given([userKeyIssued])
    .when(revoke('system', { userId: 'a', isAdmin: true }))
    .thenThrows('api_key_not_found');
  given([systemKeyIssued])
    .when(revoke('user', { userId: 'a', isAdmin: true }))
    .thenThrows('api_key_not_found');
  given([])
    .when(revoke('user', { userId: 'u1', isAdmin: true }))
    .thenThrows('api_key_not_found');
  given([userKeyIssued, revoked('user', 'u1')])
    .when(revoke('user', { userId: 'u1', isAdmin: false }))
    .thenThrows('api_key_not_found');
});

test.run();
