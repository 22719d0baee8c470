import { stringAttribute, type Attributes } from './attributes.ts';

/** The kinds OpenInference defines; Phoenix files any other value under UNKNOWN. */
export const OPENINFERENCE_SPAN_KINDS = [
  'TOOL',
  'CHAIN',
  'LLM',
  'PROMPT',
  'RETRIEVER',
  'EMBEDDING',
  'AGENT',
  'RERANKER',
  'EVALUATOR',
  'GUARDRAIL',
  'UNKNOWN',
] as const;

export type OpenInferenceSpanKind = (typeof OPENINFERENCE_SPAN_KINDS)[number];

export const OPENINFERENCE_SPAN_KIND_KEY = 'openinference.span.kind';

const KNOWN = new Set<string>(OPENINFERENCE_SPAN_KINDS);

/** Instrumentations send the kind in any case ("llm"), so it is compared upper-cased. */
export const openInferenceSpanKindOf = (attributes: Attributes): OpenInferenceSpanKind => {
  const raw = stringAttribute(attributes, OPENINFERENCE_SPAN_KIND_KEY)?.trim().toUpperCase();
  return raw !== undefined && KNOWN.has(raw) ? (raw as OpenInferenceSpanKind) : 'UNKNOWN';
};
