import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPasswordHasher } from '../../domain/identity/passwords.ts';
import { limitPasswordHashing } from '../../ops/limitPasswordHashing.ts';
import { TEST_PASSWORD_COST } from '../support/testIdentity.ts';

/** argon2 shares libuv's thread pool with zlib: the server lets only a few hashes run at once. */
const test = suite('password hashing limit: at most N argon2 operations at once, the rest wait their turn');

test('given six concurrent hashes and verifications with a limit of 2, then never more than 2 run and every answer is right', async () => {
  const real = createPasswordHasher(TEST_PASSWORD_COST);
  let running = 0;
  let most = 0;
  const counted =
    <T>(operation: () => Promise<T>) =>
    async () => {
      running++;
      most = Math.max(most, running);
      try {
        return await operation();
      } finally {
        running--;
      }
    };
  const hasher = limitPasswordHashing(
    {
      hash: (p) => counted(() => real.hash(p))(),
      verify: (h, p) => counted(() => real.verify(h, p))(),
      verifyNothing: (p) => counted(() => real.verifyNothing(p))(),
    },
    2,
  );
  const stored = await real.hash('right');
  const answers = await Promise.all([
    hasher.verify(stored, 'right'),
    hasher.verify(stored, 'wrong'),
    hasher.verifyNothing('x'),
    hasher.hash('a').then((h) => real.verify(h, 'a')),
    hasher.verify(stored, 'right'),
    hasher.hash('b').then((h) => h.startsWith('$argon2id$')),
  ]);
  assert.equal(answers, [true, false, false, true, true, true]);
  assert.is(most, 2);
  assert.is(running, 0);
});

test.run();
