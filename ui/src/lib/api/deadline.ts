/**
 * Runs `call` with a signal that aborts after `ms`, and rejects with `message` then: a request the
 * server never answers (hung, or a proxy holding it) ends with words instead of a spinner for ever.
 * setTimeout, not AbortSignal.timeout, so a test's fake clock can reach the deadline at once.
 */
export const withDeadline = <T>(ms: number, message: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(message));
      controller.abort();
    }, ms);
    call(controller.signal)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
};
