import { convertGenAISpanAttributesToOpenInferenceSpanAttributes } from '@arizeai/openinference-genai';
import { attributesFrom, type Attributes, type AttributeValue } from './attributes.ts';
import { OPENINFERENCE_SPAN_KIND_KEY, openInferenceSpanKindOf } from './openInferenceSpanKind.ts';
import { openLlmetryAttributes } from './openLlmetryAttributes.ts';
import { plainAttributes, typedOf } from './plainAttributes.ts';
import { SESSION_ID_KEY, sessionIdOf } from './sessionId.ts';
import type { SpanRecord } from './events.ts';
import { storableName } from '../base/storableText.ts';
import { storableAttributes } from './storable.ts';
import { vercelAiAttributes } from './vercelAiAttributes.ts';

/**
 * The OpenInference attributes (what every read of a span understands: kind, model, tokens,
 * messages, cost) of a span that speaks another convention: the OpenTelemetry GenAI conventions,
 * current (`gen_ai.provider.name`, `gen_ai.input.messages` with parts, `gen_ai.usage.input_tokens`,
 * read by `@arizeai/openinference-genai`, Phoenix's authors' converter) and older (`gen_ai.system`,
 * OpenLLMetry's `gen_ai.prompt.N.*`, `openLlmetryAttributes.ts`), and the Vercel AI SDK's `ai.*`
 * (`vercelAiAttributes.ts`). Where two say the same thing the current conventions win over the
 * older, and those over `ai.*`; an attribute the span already has (OpenInference sent alongside)
 * always wins, and the sent attributes stay as they are.
 *
 * It runs where events become rows (the tracing projector, on every replay), not at ingest: the
 * log keeps what was sent, and a span stored before this existed converts on rebuild as a new one
 * does live. So it must be deterministic, cheap for the spans it does not concern (one pass over
 * the keys, nothing allocated) and unable to stop the projector: a value that is not JSON, not of
 * the expected shape or over `CONVERTED_STRING_MAX_CHARS` converts to nothing, and the result is
 * made storable like any stored attribute (a `\u0000` escape inside a JSON message is U+0000 once
 * parsed).
 */
export const withOpenInference = (span: SpanRecord): SpanRecord => {
  const speaks = conventionsOf(span.attributes);
  if (speaks === NONE) return span;
  const derived = derivedAttributes(span.attributes, speaks);
  if (derived === null) return span;
  // Spread defines keys (a `__proto__` key stays a key); no derived key is one the span has.
  const attributes: Attributes = { ...span.attributes, ...derived };
  return {
    ...span,
    attributes,
    spanKind: span.spanKind === 'UNKNOWN' ? openInferenceSpanKindOf(attributes) : span.spanKind,
    sessionId: span.sessionId ?? genAiSessionId(span.attributes),
  };
};

/**
 * The session a span joins through `gen_ai.conversation.id` when it sends no `session.id`: what
 * `withOpenInference` gives it, for readers of raw events that need only that (the annotation
 * scope, an erased span's record). Null when the span sends `session.id` or no conversation id.
 */
export const genAiSessionId = (attributes: unknown): string | null => {
  if (typeof attributes !== 'object' || attributes === null) return null;
  if (Object.hasOwn(attributes, SESSION_ID_KEY) || !Object.hasOwn(attributes, CONVERSATION_ID)) return null;
  const conversation = storableAttributes({ [CONVERSATION_ID]: (attributes as Attributes)[CONVERSATION_ID] ?? null })[CONVERSATION_ID];
  const typed = typedOf(plainAttributes({ v: conversation ?? null }, () => true).v);
  const id = typed === undefined ? null : sessionIdOf({ [SESSION_ID_KEY]: typed });
  return id === null ? null : storableName(id);
};

const CONVERSATION_ID = 'gen_ai.conversation.id';

const NONE = 0;
const GEN_AI = 1;
const VERCEL = 2;

/**
 * Which conventions the keys use (`gen_ai.*`: GEN_AI, `ai.*`: VERCEL, as bits): one pass over the
 * keys, the only cost this adds to a span that has neither (~0.2 µs for a dozen keys).
 */
const conventionsOf = (attributes: Attributes): number => {
  let found = NONE;
  for (const key in attributes) {
    if (key.startsWith('gen_ai.')) found |= GEN_AI;
    else if (key.startsWith('ai.')) found |= VERCEL;
  }
  return found;
};

const isGenAiKey = (key: string): boolean => key.startsWith('gen_ai.');
const isOpenLlmetryKey = (key: string): boolean => key.startsWith('gen_ai.') || key.startsWith('llm.');
const isVercelKey = (key: string): boolean => key.startsWith('ai.');

/** What says "this span is a model, tool or agent call" in the GenAI conventions. */
const CALL_KEYS = [
  'gen_ai.operation.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.provider.name',
  'gen_ai.system',
  'gen_ai.agent.id',
  'gen_ai.agent.name',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
];

/** OpenLLMetry's request type, for the spans it sends without `gen_ai.operation.name`. */
const REQUEST_TYPE_KINDS: ReadonlyMap<string, string> = new Map([
  ['chat', 'LLM'],
  ['completion', 'LLM'],
  ['embedding', 'EMBEDDING'],
  ['rerank', 'RERANKER'],
]);

/** The attributes to add (none the span already has), storable; null when there are none or the conversion failed. */
const derivedAttributes = (attributes: Attributes, speaks: number): Attributes | null => {
  let layers: Readonly<Record<string, unknown>>[];
  try {
    const genAi = speaks & GEN_AI ? plainAttributes(attributes, isGenAiKey) : {};
    const current = Object.keys(genAi).length > 0 ? (convertGenAISpanAttributesToOpenInferenceSpanAttributes(genAi) ?? {}) : {};
    const vercel = speaks & VERCEL ? vercelAiAttributes(plainAttributes(attributes, isVercelKey)) : {};
    const older = speaks & GEN_AI ? openLlmetryAttributes(plainAttributes(attributes, isOpenLlmetryKey)) : {};
    // The converter calls any span with a `gen_ai.*` key an LLM; only an operation, a model, a
    // provider, a tool or an agent says it is one (a span carrying only a conversation id is not).
    const kind = current[OPENINFERENCE_SPAN_KIND_KEY];
    const legacyType = attributes['llm.request.type'];
    const legacyKind = legacyType && 'str' in legacyType ? REQUEST_TYPE_KINDS.get(legacyType.str) : undefined;
    const chosenKind = Object.hasOwn(genAi, 'gen_ai.operation.name')
      ? kind
      : (vercel[OPENINFERENCE_SPAN_KIND_KEY] ?? legacyKind ?? (CALL_KEYS.some((k) => Object.hasOwn(genAi, k)) ? kind : undefined));
    layers = [chosenKind === undefined || chosenKind === null ? {} : { [OPENINFERENCE_SPAN_KIND_KEY]: chosenKind }, current, older, vercel];
  } catch {
    return null;
  }
  // Earlier layers win; the kind only from the first (it was chosen above). No `delete` and no
  // Object.entries: both cost more here than the conversion's own work (dictionary-mode objects).
  const out: [string, AttributeValue][] = [];
  const taken = new Set<string>();
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i]!;
    for (const key in layer) {
      if ((i > 0 && key === OPENINFERENCE_SPAN_KIND_KEY) || taken.has(key) || Object.hasOwn(attributes, key)) continue;
      const typed = typedOf(layer[key]);
      if (typed === undefined) continue;
      taken.add(key);
      out.push([key, typed]);
    }
  }
  return out.length === 0 ? null : storableAttributes(attributesFrom(out));
};
