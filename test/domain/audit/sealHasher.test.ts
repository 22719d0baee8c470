import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveAuditKey } from '../../../domain/audit/auditKey.ts';
import { GENESIS_SEAL, nextSeal, sealHasher, sealParts } from '../../../domain/audit/sealChain.ts';

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
