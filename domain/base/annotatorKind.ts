/** Who gave an annotation or an experiment's evaluation: a person, a model (a judge) or code. */
export type AnnotatorKind = 'HUMAN' | 'LLM' | 'CODE';
export const ANNOTATOR_KINDS: readonly AnnotatorKind[] = ['HUMAN', 'LLM', 'CODE'];
