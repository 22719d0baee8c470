import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../domain/errors.ts';
import type { EncryptedValue } from '../../../domain/secrets/crypto.ts';
import { createKeyring, decryptSecret, encryptSecret } from '../../../domain/secrets/crypto.ts';

const SECRET = 'a-server-secret-of-32-characters-1';
const ring = createKeyring([{ keyId: 'k1', secret: SECRET }]);

const fails = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'secret_undecryptable');
    return;
  }
  assert.unreachable('expected decryption to fail');
};

const flip = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[0] = bytes[0]! ^ 1;
  return bytes.toString('base64');
};

test('a value round-trips and is not readable sealed', () => {
  const sealed = encryptSecret(ring, 'sk-marker-123', 'OPENAI_API_KEY');
  assert.is(sealed.keyId, 'k1');
  assert.not.ok(JSON.stringify(sealed).includes('sk-marker-123'));
  assert.is(Buffer.from(sealed.iv, 'base64').length, 12);
  assert.is(Buffer.from(sealed.tag, 'base64').length, 16);
  assert.is(decryptSecret(ring, sealed, 'OPENAI_API_KEY'), 'sk-marker-123');
});

test('the same value seals differently each time', () => {
  const one = encryptSecret(ring, 'v', 'K');
  const two = encryptSecret(ring, 'v', 'K');
  assert.is.not(one.iv, two.iv);
  assert.is.not(one.ciphertext + one.tag, two.ciphertext + two.tag);
});

test('any tampering makes decryption fail', () => {
  const sealed = encryptSecret(ring, 'sk-marker-123', 'K');
  fails(() => decryptSecret(ring, { ...sealed, ciphertext: flip(sealed.ciphertext) }, 'K'));
  fails(() => decryptSecret(ring, { ...sealed, tag: flip(sealed.tag) }, 'K'));
  fails(() => decryptSecret(ring, { ...sealed, iv: flip(sealed.iv) }, 'K'));
  fails(() => decryptSecret(ring, { ...sealed, tag: Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64') }, 'K'));
});

test('a value moved to another key name does not open', () => {
  fails(() => decryptSecret(ring, encryptSecret(ring, 'v', 'A_KEY'), 'B_KEY'));
});

test('a different server secret cannot open it', () => {
  const other = createKeyring([{ keyId: 'k1', secret: `${SECRET}x` }]);
  fails(() => decryptSecret(other, encryptSecret(ring, 'v', 'K'), 'K'));
});

test('rotation: new values use the new key, old values stay readable while the old key is kept', () => {
  const old: EncryptedValue = encryptSecret(ring, 'old value', 'K');
  const rotated = createKeyring(
    [
      { keyId: 'k1', secret: SECRET },
      { keyId: 'k2', secret: 'a-new-server-secret-of-32-chars-22' },
    ],
    'k2',
  );
  const fresh = encryptSecret(rotated, 'new value', 'K');
  assert.is(fresh.keyId, 'k2');
  assert.is(decryptSecret(rotated, old, 'K'), 'old value');
  assert.is(decryptSecret(rotated, fresh, 'K'), 'new value');
  fails(() => decryptSecret(ring, fresh, 'K'));
  fails(() => decryptSecret(createKeyring([{ keyId: 'k2', secret: 'a-new-server-secret-of-32-chars-22' }]), old, 'K'));
});

test('the key id takes part in the derivation', () => {
  const sameSecretOtherId = createKeyring([{ keyId: 'k9', secret: SECRET }]);
  fails(() => decryptSecret(sameSecretOtherId, { ...encryptSecret(ring, 'v', 'K'), keyId: 'k9' }, 'K'));
});

test('a keyring must know its current key and each id once', () => {
  assert.throws(() => createKeyring([]));
  assert.throws(() => createKeyring([{ keyId: 'k1', secret: 'a' }], 'k2'));
  assert.throws(() =>
    createKeyring([
      { keyId: 'k1', secret: 'a' },
      { keyId: 'k1', secret: 'b' },
    ]),
  );
});

test.run();
