import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { eventMetadata } from '../domain/eventMetadata.ts';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition, positionToString } from '../domain/eventstore/types.ts';
import {
  foldSkipDecisions,
  PROJECTION_DECISIONS_STREAM,
  type ProjectionEventSkipped,
} from '../domain/operations/projectionEventSkipped.ts';

/** A skip that must not be recorded, with the reason for the operator. */
export class SkipRefusedError extends Error {}

/**
 * Records (as a ProjectionEventSkipped event) that `projection` does without the event at
 * `position`. Refused for an event the read model has already applied: the live tables would keep
 * its effect while a rebuild would leave it out. Recording the same decision twice is a no-op.
 */
export const recordSkipDecision = async (
  store: EventStore,
  db: CommonQueryMethods,
  request: { readonly projection: string; readonly position: Position; readonly reason: string | null; readonly actor: string },
): Promise<{ readonly event: StoredEvent; readonly alreadyRecorded: boolean }> => {
  const at = positionToString(request.position);
  // Positions are (tx, seq) with integer seq: the first event after (tx, seq - 1) is the one at `position`, if any.
  const [event] = await store.readAll({ tx: request.position.tx, seq: request.position.seq - 1n }, 1);
  if (!event || comparePosition(event.position, request.position) !== 0) throw new SkipRefusedError(`there is no event at position ${at}`);
  const decided = foldSkipDecisions(await store.readStream(PROJECTION_DECISIONS_STREAM)).get(request.projection);
  if (decided?.has(event.id)) return { event, alreadyRecorded: true };
  const checkpoint = await db.maybeOne(sql.type(z.object({ tx: z.bigint(), seq: z.bigint() }))`
    SELECT tx, seq FROM projection_checkpoints WHERE name = ${request.projection}`);
  if (checkpoint && comparePosition(checkpoint, request.position) >= 0) {
    throw new SkipRefusedError(
      `${request.projection} has already applied event ${at}; skipping it now would make a rebuild differ from the live read model`,
    );
  }
  const data: ProjectionEventSkipped['data'] = {
    projection: request.projection,
    eventId: event.id,
    position: at,
    stream: event.stream,
    type: event.type,
    reason: request.reason,
  };
  await store.appendToStream(
    PROJECTION_DECISIONS_STREAM,
    [{ type: 'ProjectionEventSkipped', data, metadata: eventMetadata({ actor: request.actor, requestId: null }, 'projections skip') }],
    'any',
  );
  return { event, alreadyRecorded: false };
};
