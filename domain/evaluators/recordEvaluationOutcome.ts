import type { EventStore, Position } from '../eventstore/types.ts';
import { handleCommand } from '../handleCommand.ts';
import { cleanAnnotation } from '../annotations/annotationRecord.ts';
import type { RecordEvaluationOutcome } from './commands.ts';
import { evaluationOutcomeDecider } from './evaluationOutcomeDecider.ts';
import { evaluationStream } from './evaluatorStream.ts';

/** Records an evaluation's outcome on its own stream, as the actor `evaluator:<id>`; null when it was already recorded. */
export const recordEvaluationOutcome = async (
  store: EventStore,
  key: {
    readonly attachmentId: number;
    readonly evaluatorId: number;
    readonly version: number;
    readonly target: string;
    readonly targetId: string;
  },
  command: RecordEvaluationOutcome,
): Promise<Position | null> => {
  const cleaned = command.type === 'RecordEvaluationVerdict' ? { ...command, annotation: cleanAnnotation(command.annotation) } : command;
  const { position } = await handleCommand(store, evaluationStream(key), evaluationOutcomeDecider, cleaned, {
    actor: `evaluator:${key.evaluatorId}`,
    requestId: null,
  });
  return position;
};

/** Whether this evaluation has its outcome already (read before calling a model or running code again). */
export const hasEvaluationOutcome = async (
  store: EventStore,
  key: { readonly attachmentId: number; readonly version: number; readonly target: string; readonly targetId: string },
): Promise<boolean> => (await store.readStream(evaluationStream(key))).length > 0;
