import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../domain/errors.ts';
import { createKeyring, decryptSecret } from '../../../domain/secrets/crypto.ts';
import type { SecretsReplaced } from '../../../domain/secrets/events.ts';
import { replaceSecrets } from '../../../domain/secrets/replaceSecrets.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { t } from '../identity/fixtures.ts';

const ring = createKeyring([{ keyId: 'k1', secret: 'server-secret' }]);
const ctx = { actor: 'admin1', requestId: null };

test('values are trimmed, sealed under their key name, and never in the log', async () => {
  const { store, all } = memoryEventStore();
  await replaceSecrets(store, ring, { entries: [{ key: ' OPENAI_API_KEY ', value: ' sk-marker-987 ' }], userId: 'admin1', now: t(0) }, ctx);
  assert.is(all.length, 1);
  assert.is(all[0]!.stream, 'secrets');
  assert.not.ok(JSON.stringify(all[0]!.data).includes('sk-marker-987'));
  const data = all[0]!.data as SecretsReplaced['data'];
  assert.is(data.upserted[0]!.key, 'OPENAI_API_KEY');
  assert.is(decryptSecret(ring, data.upserted[0]!.value, 'OPENAI_API_KEY'), 'sk-marker-987');
});

test('a blank value is refused before anything is written', async () => {
  const { store, all } = memoryEventStore();
  try {
    await replaceSecrets(
      store,
      ring,
      {
        entries: [
          { key: 'A', value: 'x' },
          { key: 'B', value: '  ' },
        ],
        userId: null,
        now: t(0),
      },
      ctx,
    );
    assert.unreachable();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'secret_value_empty');
  }
  assert.is(all.length, 0);
});

test('deleting only missing keys writes nothing', async () => {
  const { store, all } = memoryEventStore();
  const result = await replaceSecrets(store, ring, { entries: [{ key: 'A', value: null }], userId: null, now: t(0) }, ctx);
  assert.is(result.position, null);
  assert.is(all.length, 0);
});

test.run();
