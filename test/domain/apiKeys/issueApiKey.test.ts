import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyApiKey } from '../../../domain/apiKeys/apiKeyValue.ts';
import { issueApiKey } from '../../../domain/apiKeys/issueApiKey.ts';
import { revokeApiKey } from '../../../domain/apiKeys/revokeApiKey.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { t } from '../identity/fixtures.ts';

const ctx = { actor: 'u1', requestId: 'r1' };

test('issuing returns the key once and logs only its hash', async () => {
  const { store, all } = memoryEventStore();
  const { keyId, value } = await issueApiKey(
    store,
    { kind: 'user', ownerUserId: 'u1', createdBy: 'u1', name: 'ci', description: 'for CI', expiresAt: null, now: t(0) },
    ctx,
  );
  assert.is(all.length, 1);
  assert.is(all[0]!.stream, `apikey-${keyId}`);
  assert.not.ok(JSON.stringify(all[0]!.data).includes(value));
  assert.ok(verifyApiKey(value, (all[0]!.data as { keyHash: string }).keyHash));
  await revokeApiKey(
    store,
    { type: 'RevokeApiKey', keyId, kind: 'user', requester: { userId: 'u1', isAdmin: false }, reason: 'deleted', now: t(1) },
    ctx,
  );
  assert.is(all[1]!.type, 'ApiKeyRevoked');
});

test.run();
