import type { EventStore, Position } from '../eventstore/types.ts';
import { handleCommand, type CommandContext } from '../handleCommand.ts';
import { annotationDecider } from './annotationDecider.ts';
import { annotationStream } from './annotationStream.ts';
import type { AnnotationKey } from './events.ts';

/** Removes single annotations by key, as one event; the caller has checked who may. */
export const removeAnnotations = async (
  store: EventStore,
  annotations: readonly AnnotationKey[],
  context: CommandContext,
): Promise<Position | null> =>
  (await handleCommand(store, annotationStream(), annotationDecider, { type: 'RemoveAnnotations', annotations }, context)).position;
