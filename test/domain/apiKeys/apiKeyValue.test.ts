import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateApiKey, hashApiKey, parseApiKey, verifyApiKey } from '../../../domain/apiKeys/apiKeyValue.ts';

test('a key carries its id and a random secret; only its hash is kept', () => {
  const key = generateApiKey();
  assert.match(key.value, /^lpk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
  assert.equal(parseApiKey(key.value), { keyId: key.keyId });
  assert.match(key.keyHash, /^sha256:[A-Za-z0-9_-]{43}$/);
  assert.not.ok(key.keyHash.includes(key.value.split('_')[2]!));
  assert.is.not(generateApiKey().value, key.value);
});

test('a key verifies against its hash and nothing else does', () => {
  const key = generateApiKey('k-1');
  assert.ok(verifyApiKey(key.value, key.keyHash));
  const tampered = key.value.slice(0, -1) + (key.value.endsWith('A') ? 'B' : 'A');
  assert.not.ok(verifyApiKey(tampered, key.keyHash));
  assert.not.ok(verifyApiKey(generateApiKey('k-1').value, key.keyHash));
  assert.not.ok(verifyApiKey(key.value, 'sha256:short'));
  assert.is(hashApiKey(key.value), key.keyHash);
});

test('things that are not our keys do not parse', () => {
  assert.is(parseApiKey('eyJhbGciOiJIUzI1NiJ9.eyJqdGkiOiJBcGlLZXk6MSJ9.sig'), null);
  assert.is(parseApiKey('lpk_abc'), null);
  assert.is(parseApiKey('lpk_abc_tooshort'), null);
  assert.is(parseApiKey('an admin secret of thirty-two characters1'), null);
});

test('a given key id must be safe to embed', () => {
  assert.throws(() => generateApiKey('a_b'));
  assert.throws(() => generateApiKey(''));
  assert.ok(parseApiKey(generateApiKey('6f1c2a9e-0d7b-4c1e-9a55-3b2f8e7d6c10').value));
});

test.run();
