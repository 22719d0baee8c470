import type { PasswordHasher } from '../domain/identity/passwords.ts';

/**
 * How many argon2 hashes or verifications may run at once. argon2 runs on libuv's thread pool,
 * which has 4 threads (unless UV_THREADPOOL_SIZE is set before Node starts; a running process
 * cannot grow it) and is shared with zlib, which inflates gzip OTLP bodies, and with async fs and
 * dns. The pool's queue is first come, first served: 40 concurrent logins put 40 jobs of ~0.1 s
 * CPU each ahead of any inflate queued after them, so ingest waited seconds for logins. Queued
 * here instead, hashes never take more than half of the pool; on small hosts two parallel hashes
 * already use every core, so logins lose no throughput.
 */
export const MAX_CONCURRENT_PASSWORD_HASHES = 2;

/** A PasswordHasher whose operations wait their turn (FIFO) beyond `limit` running at once. */
export const limitPasswordHashing = (hasher: PasswordHasher, limit = MAX_CONCURRENT_PASSWORD_HASHES): PasswordHasher => {
  let running = 0;
  const waiting: Array<() => void> = [];
  const inTurn = async <T>(operation: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await operation();
    } finally {
      // The slot passes straight to the next in line, so `running` never drops below a waiter's count.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
  return {
    hash: (password) => inTurn(() => hasher.hash(password)),
    verify: (passwordHash, password) => inTurn(() => hasher.verify(passwordHash, password)),
    verifyNothing: (password) => inTurn(() => hasher.verifyNothing(password)),
  };
};
