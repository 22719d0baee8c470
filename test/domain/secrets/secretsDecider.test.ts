import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createKeyring, encryptSecret } from '../../../domain/secrets/crypto.ts';
import type { SecretsEvent } from '../../../domain/secrets/events.ts';
import type { ReplaceSecrets } from '../../../domain/secrets/secretsDecider.ts';
import { secretsDecider } from '../../../domain/secrets/secretsDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { t } from '../identity/fixtures.ts';

const { given } = deciderSpec(secretsDecider);
const ring = createKeyring([{ keyId: 'k1', secret: 'server-secret' }]);
const A = encryptSecret(ring, 'a', 'OPENAI_API_KEY');
const B = encryptSecret(ring, 'b', 'ANTHROPIC_API_KEY');
const C = encryptSecret(ring, 'c', 'OPENAI_API_KEY');

const replace = (entries: ReplaceSecrets['entries']): ReplaceSecrets => ({ type: 'ReplaceSecrets', entries, userId: 'admin1', now: t(1) });
const replaced = (upserted: SecretsEvent['data']['upserted'], deleted: string[]): SecretsEvent => ({
  type: 'SecretsReplaced',
  data: { upserted, deleted, userId: 'admin1', at: t(1) },
});
const existing: SecretsEvent = {
  type: 'SecretsReplaced',
  data: { upserted: [{ key: 'OPENAI_API_KEY', value: A }], deleted: [], userId: 'admin0', at: t(0) },
};

test('a batch sets and deletes in one event', () => {
  given([existing])
    .when(
      replace([
        { key: 'ANTHROPIC_API_KEY', value: B },
        { key: 'OPENAI_API_KEY', value: null },
      ]),
    )
    .then([replaced([{ key: 'ANTHROPIC_API_KEY', value: B }], ['OPENAI_API_KEY'])]);
});

test('deleting a missing key is a silent no-op, left out of the event', () => {
  given([existing])
    .when(
      replace([
        { key: 'NOPE', value: null },
        { key: 'ANTHROPIC_API_KEY', value: B },
      ]),
    )
    .then([replaced([{ key: 'ANTHROPIC_API_KEY', value: B }], [])]);
});

test('a batch that changes nothing appends nothing', () => {
  given([])
    .when(replace([{ key: 'NOPE', value: null }]))
    .then([]);
});

test('for a key given twice the last entry wins', () => {
  given([])
    .when(
      replace([
        { key: 'OPENAI_API_KEY', value: A },
        { key: 'OPENAI_API_KEY', value: C },
      ]),
    )
    .then([replaced([{ key: 'OPENAI_API_KEY', value: C }], [])]);
  given([existing])
    .when(
      replace([
        { key: 'OPENAI_API_KEY', value: C },
        { key: 'OPENAI_API_KEY', value: null },
      ]),
    )
    .then([replaced([], ['OPENAI_API_KEY'])]);
});

test('a deleted key can be deleted again only after it is set again', () => {
  const gone: SecretsEvent = replaced([], ['OPENAI_API_KEY']);
  given([existing, gone])
    .when(replace([{ key: 'OPENAI_API_KEY', value: null }]))
    .then([]);
});

test('an empty batch and bad key names are refused', () => {
  given([]).when(replace([])).thenThrows('secrets_required');
  given([])
    .when(replace([{ key: ' ', value: A }]))
    .thenThrows('secret_key_invalid');
  given([])
    .when(replace([{ key: '1ABC', value: A }]))
    .thenThrows('secret_key_invalid');
  given([])
    .when(replace([{ key: 'A-B', value: A }]))
    .thenThrows('secret_key_invalid');
});

test('a plaintext value is refused', () => {
  given([])
    .when(replace([{ key: 'K', value: 'plain' as unknown as typeof A }]))
    .thenThrows('secret_not_encrypted');
});

test('evolve tracks which keys exist', () => {
  const state = [existing, replaced([{ key: 'B', value: B }], ['OPENAI_API_KEY'])].reduce(
    secretsDecider.evolve,
    secretsDecider.initialState(),
  );
  assert.equal([...state.keys], ['B']);
});

test.run();
