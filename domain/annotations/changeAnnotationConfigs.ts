import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import { loadState } from '../readAndFold.ts';
import { annotationConfigDecider, type AnnotationConfigsState } from './annotationConfigDecider.ts';
import { ANNOTATION_CONFIGS_STREAM } from './annotationStream.ts';
import type { AnnotationConfigCommand } from './commands.ts';
import type { AnnotationConfigEvent } from './events.ts';

/** Any change to annotation configs or their project assignments, decided on the one configs stream. */
export const changeAnnotationConfigs = (
  store: EventStore,
  command: AnnotationConfigCommand,
  context: CommandContext,
): Promise<CommandResult<AnnotationConfigEvent>> =>
  handleCommand(store, ANNOTATION_CONFIGS_STREAM, annotationConfigDecider, command, context);

/** The configs as their own stream says (authoritative): what a write answers with. */
export const loadAnnotationConfigs = (store: EventStore): Promise<AnnotationConfigsState> =>
  loadState(store, ANNOTATION_CONFIGS_STREAM, annotationConfigDecider);
