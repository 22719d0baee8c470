import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';

/** The pool methods that send a query (the rest pass through untouched). */
const QUERIES = new Set(['any', 'anyFirst', 'exists', 'many', 'manyFirst', 'maybeOne', 'maybeOneFirst', 'one', 'oneFirst', 'query']);

/**
 * The pool as one GraphQL request's resolvers see it: their queries run one at a time, each after a
 * turn of the event loop. GraphQL starts every field of a level at once, and on PGlite (WebAssembly
 * on this thread) queries queued together settle in one chain of promise callbacks: 80 aliases of a
 * small connection kept every other request (`/healthz` included) waiting until the last one. One
 * at a time with a turn between, another request waits at most for one query.
 */
export const yieldingPool = (pool: DatabasePool): DatabasePool => {
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const next = previous.then(() => nextTurn()).then(run);
    previous = next.catch(() => undefined);
    return next;
  };
  return new Proxy(pool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !QUERIES.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => inTurn(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
};
