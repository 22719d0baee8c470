import { ANNOTATOR_KINDS } from '../annotations/events.ts';
import { storableMetadata } from '../base/storableJson.ts';
import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { checkName } from '../datasets/storableExample.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../base/storableText.ts';
import type { RecordExperimentEvaluation } from './commands.ts';
import type { ExperimentEvaluationRecorded } from './events.ts';

const text = (v: string | null): string | null => (v === null ? null : clippedText(v, MESSAGE_MAX_BYTES));

/** An evaluation needs a name, an annotator kind, and a result or an error; text is made storable. */
export const experimentEvaluationDecider: Decider<null, RecordExperimentEvaluation, ExperimentEvaluationRecorded> = {
  initialState: () => null,
  evolve: (state) => state,
  decide: (c) => {
    checkName('invalid_evaluation_name', 'name', c.name);
    if (!ANNOTATOR_KINDS.includes(c.annotatorKind))
      throw new DomainError('invalid_annotator_kind', 'annotator_kind: must be LLM, CODE or HUMAN');
    if (c.score !== null && !Number.isFinite(c.score)) throw new DomainError('invalid_score', 'result.score: must be a finite number');
    if (c.label === null && c.score === null && c.explanation === null && c.error === null)
      throw new DomainError('empty_evaluation', 'result or error: an evaluation needs a label, score, explanation or an error');
    const { type: _type, ...data } = c;
    return [
      {
        type: 'ExperimentEvaluationRecorded',
        data: {
          ...data,
          label: data.label === null ? null : storableName(data.label),
          explanation: text(data.explanation),
          error: text(data.error),
          metadata: storableMetadata(data.metadata),
          traceId: data.traceId === null ? null : storableName(data.traceId),
        },
      },
    ];
  },
};
