import type { AppDeps } from '../appDeps.ts';

/**
 * Looks something up in this process's auth state; when it is not there, waits once for this
 * process to reach the log head and looks again: another process may have issued it just now.
 */
export const catchUpWith = async <T>(deps: AppDeps, lookup: () => T | null): Promise<T | null> => {
  const found = lookup();
  if (found !== null) return found;
  try {
    await deps.runner.waitFor(await deps.store.headPosition(), 2000);
  } catch {
    // Still behind after the wait: answer from what we have.
  }
  return lookup();
};
