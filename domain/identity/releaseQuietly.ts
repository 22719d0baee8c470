import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import type { UniqueKind } from './uniqueValueDecider.ts';
import { releaseUniqueValue } from './uniqueValues.ts';

/**
 * Undo a reservation while another error is already on its way out: a failure here must not hide
 * that error, and a reservation left behind is reclaimed after the grace period anyway.
 */
export const releaseQuietly = async (
  store: EventStore,
  kind: UniqueKind,
  value: string,
  userId: string,
  now: string,
  context: CommandContext,
): Promise<void> => {
  try {
    await releaseUniqueValue(store, kind, value, userId, now, context);
  } catch {
    // see above
  }
};
