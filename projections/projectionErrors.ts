import type { Position } from '../domain/eventstore/types.ts';
import type { ProjectionStop } from './projectionStop.ts';

export class ProjectionTimeoutError extends Error {
  readonly code: string = 'projection_timeout';
  constructor(target: Position) {
    super(`read models did not reach position ${target.tx}:${target.seq} in time`);
  }
}

/**
 * A read-your-writes wait that cannot succeed: a read model the change needs is stopped at an
 * event it cannot apply. It answers 503 at once (naming the read model) instead of hanging; it is
 * a ProjectionTimeoutError so callers that tolerate a lagging read model tolerate this too.
 */
export class ProjectionStoppedError extends ProjectionTimeoutError {
  override readonly code = 'projection_stopped';
  readonly status = 503;
  readonly expose = true;
  readonly headers = { 'retry-after': '30' };
  constructor(
    readonly stop: ProjectionStop,
    target: Position,
  ) {
    super(target);
    this.message =
      `The change is stored, but the "${stop.projection}" read model is stopped at event ${stop.event.position} ` +
      `(${stop.event.type}) and cannot show it until an operator acts; see "loupe projections status".`;
  }
}
