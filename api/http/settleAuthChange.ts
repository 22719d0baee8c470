import type { Position } from '../../domain/eventstore/types.ts';
import { ProjectionTimeoutError } from '../../projections/projectionRunner.ts';
import type { AppDeps } from '../appDeps.ts';

/** Read-your-writes is worth this much waiting after an auth change; its effect does not depend on it. */
const LISTINGS_WAIT_MS = 1000;

/**
 * After a change to who may authenticate (key deleted, logout, role change, user deleted,
 * password changed): it is in effect for this process's authentication at once, because the
 * freshness tracker now makes the authenticator confirm credentials on their streams until the
 * in-memory state has the event. The read models are then given a short while so the caller's
 * next listing shows the change too; when they lag (a stuck projection), the change still
 * succeeded and is answered as such rather than with a 503.
 */
export const settleAuthChange = async (deps: AppDeps, position: Position | null): Promise<void> => {
  if (position === null) return;
  deps.identity.freshness.note(position);
  // Failing batches will not reach it within the wait: answer now.
  if (deps.runner.lastError() !== null) return;
  try {
    await deps.runner.waitFor(position, LISTINGS_WAIT_MS);
  } catch (error) {
    if (!(error instanceof ProjectionTimeoutError)) throw error;
  }
};
