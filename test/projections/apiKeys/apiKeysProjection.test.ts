import { test } from 'uvu';
import type { ApiKeyIssued, ApiKeyRevoked } from '../../../domain/apiKeys/events.ts';
import { apiKeyStream } from '../../../domain/apiKeys/apiKeyStream.ts';
import type { UserDeleted } from '../../../domain/identity/events.ts';
import { userStream } from '../../../domain/identity/userStream.ts';
import { findApiKey, listApiKeys } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { apiKeysProjection } from '../../../projections/apiKeys/apiKeysProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

/** The API keys read model, given/when/then: issued keys are listed (never their hash), revoked ones and a deleted owner's are gone. */
const spec = projectionSpec(apiKeysProjection);

const owner = '00000000-0000-4000-8000-0000000000b1';
const issued = (keyId: string, kind: 'user' | 'system', name: string, at: string): ApiKeyIssued => ({
  type: 'ApiKeyIssued',
  data: {
    keyId,
    kind,
    ownerUserId: kind === 'user' ? owner : null,
    createdBy: owner,
    name,
    description: null,
    expiresAt: null,
    keyHash: 'sha256:not-a-real-hash',
    at,
  },
});
const userKey = issued('11111111-1111-4111-8111-111111111111', 'user', 'laptop', '2024-01-01T00:00:00.000Z');
const systemKey = issued('22222222-2222-4222-8222-222222222222', 'system', 'ci', '2024-01-02T00:00:00.000Z');
const given = [inStream(apiKeyStream(userKey.data.keyId), userKey), inStream(apiKeyStream(systemKey.data.keyId), systemKey)];
const row = (e: ApiKeyIssued) => ({
  keyId: e.data.keyId,
  kind: e.data.kind,
  ownerUserId: e.data.ownerUserId,
  createdBy: e.data.createdBy,
  name: e.data.name,
  description: null,
  expiresAt: null,
  createdAt: e.data.at,
});

test('given issued keys, then each is listed under its kind, without its hash', async () => {
  await spec.given(...given).then((db) => listApiKeys(db, { kind: 'user' }), [row(userKey)]);
  await spec.given(...given).then((db) => listApiKeys(db, { kind: 'system' }), [row(systemKey)]);
});

test('given a key, when it is revoked, then it is gone', async () => {
  const revoked: ApiKeyRevoked = {
    type: 'ApiKeyRevoked',
    data: { keyId: userKey.data.keyId, kind: 'user', ownerUserId: owner, reason: 'deleted', at: '2024-01-03T00:00:00.000Z' },
  };
  await spec.given(...given, inStream(apiKeyStream(userKey.data.keyId), revoked)).then((db) => findApiKey(db, userKey.data.keyId), null);
});

test('given keys, when their owner is deleted, then the user key goes and the system key the user created stays', async () => {
  const deleted: UserDeleted = { type: 'UserDeleted', data: { userId: owner, at: '2024-01-03T00:00:00.000Z' } };
  const history = [...given, inStream(userStream(owner), deleted)];
  await spec.given(...history).then((db) => listApiKeys(db, { kind: 'user' }), []);
  await spec.given(...history).then((db) => listApiKeys(db, { kind: 'system' }), [row(systemKey)]);
});

test.run();
