import type { Position } from '../domain/eventstore/types.ts';
import { comparePosition } from '../domain/eventstore/types.ts';
import type { ProjectionRunner } from './projectionRunner.ts';

/**
 * How far the named read models have applied the log in this process: the least of their
 * positions, stopped ones included. `runner.position()` leaves stopped read models out (so that one
 * poison event elsewhere does not hold everything back), which is wrong for a caller asking "does
 * the users table show my change yet?": a stopped `users` must count as behind.
 */
export const readModelPosition = (runner: Pick<ProjectionRunner, 'projections' | 'position'>, names: readonly string[]): Position => {
  let least: Position | null = null;
  for (const p of runner.projections()) {
    if (!names.includes(p.name)) continue;
    if (least === null || comparePosition(p.position, least) < 0) least = p.position;
  }
  return least ?? runner.position();
};
