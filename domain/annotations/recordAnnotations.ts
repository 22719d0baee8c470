import type { EventStore, Position } from '../eventstore/types.ts';
import { handleCommand, type CommandContext } from '../handleCommand.ts';
import { annotationDecider } from './annotationDecider.ts';
import { cleanAnnotation } from './annotationRecord.ts';
import { annotationStream } from './annotationStream.ts';
import type { RecordAnnotations } from './commands.ts';

/**
 * Appends one request's annotations as ONE event on a fresh stream, text made storable first
 * (U+0000 and unpaired surrogates replaced). Throws InvalidAnnotationsError naming every broken
 * annotation by index; nothing is appended then. Returns the event's position, or null for none.
 */
export const recordAnnotations = async (
  store: EventStore,
  command: RecordAnnotations,
  context: CommandContext,
): Promise<Position | null> => {
  const cleaned: RecordAnnotations = { ...command, annotations: command.annotations.map(cleanAnnotation) };
  const { position } = await handleCommand(store, annotationStream(), annotationDecider, cleaned, context);
  return position;
};
