import type { Position } from '../../domain/eventstore/types.ts';
import type { ProjectionRunner } from '../../projections/projectionRunner.ts';

/**
 * Read-your-writes: wait until this process has applied the command's events (read models and
 * the in-memory auth state) before answering, so the caller's next request sees them.
 */
/**
 * A sign-in (password, LDAP, OAuth2, refresh) is useless until its session is known, so it waits
 * this long for a lagging projection (a loaded machine) rather than the usual 5 s and a 503 the
 * person would have to retry by hand.
 */
export const SIGN_IN_SETTLE_MS = 30_000;

export const settle = async (runner: ProjectionRunner, position: Position | null, timeoutMs?: number): Promise<void> => {
  if (position !== null) await runner.waitFor(position, timeoutMs);
};
