import { test } from 'uvu';
import type { SecretsReplaced } from '../../../domain/secrets/events.ts';
import { SECRETS_STREAM } from '../../../domain/secrets/secretsStream.ts';
import { listSecrets } from '../../../projections/secrets/secretQueries.ts';
import { secretsProjection } from '../../../projections/secrets/secretsProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

/** The secrets read model, given/when/then: one batch upserts and deletes keys; listings show keys, never values. */
const spec = projectionSpec(secretsProjection);

const sealed = (n: string) => ({ keyId: 'k1', iv: `iv${n}`, ciphertext: `c${n}`, tag: `t${n}` });
const replaced = (at: string, upserted: readonly string[], deleted: readonly string[] = []): SecretsReplaced => ({
  type: 'SecretsReplaced',
  data: { upserted: upserted.map((key) => ({ key, value: sealed(key) })), deleted, userId: null, at },
});
const all = { search: null, afterKey: null, limit: 10 } as const;

test('given a batch, then its keys are listed in key order with their times', async () => {
  await spec
    .given(inStream(SECRETS_STREAM, replaced('2024-01-01T00:00:00.000Z', ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'])))
    .then((db) => listSecrets(db, all), {
      secrets: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'].map((key) => ({
        key,
        owner: null,
        createdAt: '2024-01-01T00:00:00.000Z',
        updatedAt: '2024-01-01T00:00:00.000Z',
      })),
      nextKey: null,
    });
});

test('given a key, when a later batch writes it again and deletes another, then it keeps its creation time and the other is gone', async () => {
  await spec
    .given(inStream(SECRETS_STREAM, replaced('2024-01-01T00:00:00.000Z', ['A', 'B']), replaced('2024-01-02T00:00:00.000Z', ['A'], ['B'])))
    .then((db) => listSecrets(db, all), {
      secrets: [{ key: 'A', owner: null, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-02T00:00:00.000Z' }],
      nextKey: null,
    });
});

test.run();
