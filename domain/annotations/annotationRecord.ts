import { NAME_MAX_BYTES, storableName, storableText } from '../base/storableText.ts';
import { storableMetadata } from '../base/storableJson.ts';
import { ANNOTATOR_KINDS, type AnnotationRecord, type AnnotationTarget, type AnnotatorKind } from './events.ts';

/** A problem with one field of one annotation: `path` is relative to the annotation (`result.score`). */
export type AnnotationProblem = { readonly path: readonly string[]; readonly message: string };

/** The name notes carry; other annotations may not use it (the reference reserves it too). */
export const NOTE_NAME = 'note';

/** Postgres `integer`: a document position beyond it could not be stored. */
export const MAX_DOCUMENT_POSITION = 2_147_483_647;

const TARGETS = new Set<string>(['span', 'trace', 'session', 'document']);
const KINDS = new Set<string>(ANNOTATOR_KINDS);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? storableText(v) : null);

/**
 * Text fields and metadata as they may be stored, nothing refused: what the command function
 * sends to the decider. U+0000 and unpaired surrogates become U+FFFD (Postgres text and jsonb
 * cannot hold them); lengths are the decider's to judge.
 */
export const cleanAnnotation = (a: AnnotationRecord): AnnotationRecord => ({
  ...a,
  targetId: storableText(a.targetId),
  name: storableText(a.name),
  label: textOrNull(a.label),
  explanation: textOrNull(a.explanation),
  metadata: storableMetadata(a.metadata),
  identifier: storableText(a.identifier),
});

const tooLong = (s: string): boolean => s.length * 3 > NAME_MAX_BYTES && Buffer.byteLength(s, 'utf8') > NAME_MAX_BYTES;

const TARGET_FIELD: Record<AnnotationTarget, string> = { span: 'span_id', document: 'span_id', trace: 'trace_id', session: 'session_id' };

/**
 * What the decider refuses in one annotation, each naming its field as the REST body does
 * (`span_id`, `result.score`, `document_position`). Names, identifiers, labels and target ids end
 * up in indexes, so they are limited to NAME_MAX_BYTES of UTF-8 rather than cut silently.
 */
export const annotationProblems = (a: AnnotationRecord, asNote: boolean): AnnotationProblem[] => {
  const problems: AnnotationProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path: path.split('.'), message });
  const targetField = TARGET_FIELD[a.target] ?? 'target';
  if (!TARGETS.has(a.target)) problem('target', `unknown annotation target "${String(a.target)}"`);
  if (a.targetId.trim() === '') problem(targetField, 'must not be empty');
  else if (tooLong(a.targetId)) problem(targetField, `must be at most ${NAME_MAX_BYTES} bytes of UTF-8`);
  if (a.name.trim() === '') problem('name', 'must not be empty');
  else if (tooLong(a.name)) problem('name', `must be at most ${NAME_MAX_BYTES} bytes of UTF-8`);
  else if (!asNote && a.name === NOTE_NAME) problem('name', `"${NOTE_NAME}" is reserved for notes: use the notes route`);
  if (!KINDS.has(a.annotatorKind)) problem('annotator_kind', `must be one of ${ANNOTATOR_KINDS.join(', ')}`);
  if (a.score !== null && (typeof a.score !== 'number' || !Number.isFinite(a.score))) problem('result.score', 'must be a finite number');
  if (a.label !== null && tooLong(a.label)) problem('result.label', `must be at most ${NAME_MAX_BYTES} bytes of UTF-8`);
  if (a.label === null && a.score === null && (a.explanation === null || a.explanation.trim() === ''))
    problem('result', 'an annotation needs a label, a score or an explanation');
  if (tooLong(a.identifier)) problem('identifier', `must be at most ${NAME_MAX_BYTES} bytes of UTF-8`);
  if (a.target === 'document') {
    const p = a.documentPosition;
    if (p === null || !Number.isInteger(p) || p < 0 || p > MAX_DOCUMENT_POSITION)
      problem('document_position', `must be an integer from 0 to ${MAX_DOCUMENT_POSITION}`);
    if (a.identifier.trim() !== '') problem('identifier', 'document annotations do not take an identifier');
  } else if (a.documentPosition !== null) problem('document_position', 'only document annotations have a position');
  return problems;
};

/** Every problem of a batch, by index: what the decider refuses (and the edge checks first, to answer 422 before any lookup). */
export const batchProblems = (
  annotations: readonly AnnotationRecord[],
  asNotes: boolean,
): { readonly index: number; readonly problem: AnnotationProblem }[] =>
  annotations.flatMap((a, index) => annotationProblems(cleanAnnotation(a), asNotes).map((problem) => ({ index, problem })));

/**
 * Any stored annotation (also one crafted into the log) as the read model can hold it, or null
 * when it names no target. Deterministic and idempotent, so a replay builds the same rows.
 */
export const storableAnnotation = (raw: unknown): AnnotationRecord | null => {
  const r = isRecord(raw) ? raw : {};
  if (typeof r.target !== 'string' || !TARGETS.has(r.target) || typeof r.targetId !== 'string' || r.targetId === '') return null;
  const target = r.target as AnnotationTarget;
  const position =
    target === 'document' && typeof r.documentPosition === 'number' && Number.isFinite(r.documentPosition)
      ? Math.min(Math.max(Math.trunc(r.documentPosition), 0), MAX_DOCUMENT_POSITION)
      : target === 'document'
        ? 0
        : null;
  return {
    target,
    targetId: storableName(r.targetId),
    documentPosition: position,
    name: storableName(typeof r.name === 'string' ? r.name : ''),
    annotatorKind: typeof r.annotatorKind === 'string' && KINDS.has(r.annotatorKind) ? (r.annotatorKind as AnnotatorKind) : 'HUMAN',
    label: typeof r.label === 'string' ? storableName(r.label) : null,
    score: typeof r.score === 'number' && Number.isFinite(r.score) ? r.score : null,
    explanation: textOrNull(r.explanation),
    metadata: storableMetadata(r.metadata),
    identifier: storableName(typeof r.identifier === 'string' ? r.identifier : ''),
  };
};
