import { createHmac, hash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveAuditKey } from '../../../domain/audit/auditKey.ts';
import { GENESIS_SEAL, nextSeal, sealHasher, sealParts } from '../../../domain/audit/sealChain.ts';
import { hmacInto, hmacKey, sha256Into } from '../../../domain/audit/sha256.ts';

// Every length from empty to past four blocks: the padding of the last one or two blocks is where
// a hand-written SHA-256 goes wrong (55, 56, 63, 64 and 119, 120 bytes are the edges).
const lengths = Array.from({ length: 300 }, (_, i) => i);

test('sha256 gives what node:crypto gives, for any length and offset', () => {
  const out = Buffer.alloc(32);
  for (const length of lengths) {
    const bytes = randomBytes(length + 7);
    sha256Into(bytes, 3, 3 + length, out);
    assert.equal(out.toString('hex'), hash('sha256', bytes.subarray(3, 3 + length), 'hex'), `${length} bytes`);
  }
  sha256Into(Buffer.from('abc'), 0, 3, out);
  assert.is(out.toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'FIPS 180-2 example');
});

test('HMAC-SHA256 gives what node:crypto gives, for empty, short, block-sized and long keys', () => {
  const out = Buffer.alloc(32);
  for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
    const key = randomBytes(keyLength);
    const state = hmacKey(key);
    for (const length of lengths) {
      const bytes = randomBytes(length);
      hmacInto(state, bytes, 0, length, out);
      assert.equal(out.toString('hex'), createHmac('sha256', key).update(bytes).digest('hex'), `key ${keyLength}, ${length} bytes`);
    }
  }
});

test("verify's seal is the sealer's seal, keyed and unkeyed, and a part of another length changes it", () => {
  for (const key of [deriveAuditKey('sha-test-secret-0123456789abcdefghijkl'), deriveAuditKey(null)]) {
    const hasher = sealHasher(key.key);
    let previous = GENESIS_SEAL;
    for (let i = 0; i < 200; i++) {
      const parts = sealParts({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        position: { tx: BigInt(1000 + i), seq: BigInt(i + 1) },
        stream: `strøm-${i % 7}`,
        revision: i,
        type: i % 2 ? 'Noté' : 'Changed',
        metadata: JSON.stringify({ actor: `u-${i}`, n: i }),
        dataSha256: randomBytes(32),
        erasure: null,
      });
      const position = { tx: BigInt(1000 + i), seq: BigInt(i + 1) };
      const expected = nextSeal(key.key, previous, position, parts);
      assert.equal(hasher(previous, position, parts).toString('hex'), expected.toString('hex'), `event ${i}`);
      const short = { ...parts, data: parts.data.subarray(0, 31) };
      assert.equal(hasher(previous, position, short).toString('hex'), nextSeal(key.key, previous, position, short).toString('hex'));
      assert.not.equal(hasher(previous, position, short).toString('hex'), expected.toString('hex'));
      previous = expected;
    }
  }
});

test.run();
