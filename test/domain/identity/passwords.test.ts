import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertPasswordHash } from '../../../domain/identity/passwordHash.ts';
import { createPasswordHasher } from '../../../domain/identity/passwords.ts';

const passwords = createPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

test('a password hashes to an argon2id PHC string that verifies it', async () => {
  const hash = await passwords.hash('correct horse');
  assert.ok(hash.startsWith('$argon2id$v=19$'));
  assert.ok(/[$,]m=1024[,$]/.test(hash));
  assert.not.ok(hash.includes('correct horse'));
  assert.is(assertPasswordHash(hash), hash);
  assert.ok(await passwords.verify(hash, 'correct horse'));
  assert.not.ok(await passwords.verify(hash, 'wrong horse'));
});

test('each hash has its own salt', async () => {
  assert.is.not(await passwords.hash('same'), await passwords.hash('same'));
});

test('a malformed hash verifies nothing instead of throwing', async () => {
  assert.not.ok(await passwords.verify('not a hash', 'x'));
});

test('verifying with no user answers false', async () => {
  assert.is(await passwords.verifyNothing('anything'), false);
});

test.run();
