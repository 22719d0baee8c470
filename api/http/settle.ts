import type { Position } from '../../domain/eventstore/types.ts';
import type { ProjectionRunner } from '../../projections/projectionRunner.ts';

/**
 * Read-your-writes: wait until this process has applied the command's events (read models and
 * the in-memory auth state) before answering, so the caller's next request sees them.
 */
export const settle = async (runner: ProjectionRunner, position: Position | null): Promise<void> => {
  if (position !== null) await runner.waitFor(position);
};
