import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NOTE_NAME } from '../../../domain/annotations/annotationRecord.ts';
import { ANNOTATOR_KINDS, type AnnotationRecord, type AnnotationTarget, type AnnotatorKind } from '../../../domain/annotations/events.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import type { AnnotationRow } from '../../../projections/annotations/annotationQueries.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { anyJson, isoTime } from '../../http/responseSchemas.ts';
import { userGlobalId } from '../identity/userJson.ts';

/** The wire name of each target's id field, and the Relay type of its annotations' ids. */
export const TARGET_FIELD = { span: 'span_id', document: 'span_id', trace: 'trace_id', session: 'session_id' } as const;
export const ANNOTATION_TYPE = {
  span: 'SpanAnnotation',
  document: 'DocumentAnnotation',
  trace: 'TraceAnnotation',
  session: 'ProjectSessionAnnotation',
} as const;

const result = z
  .object({
    label: z.string().nullish(),
    score: z.number().nullish(),
    explanation: z.string().nullish(),
  })
  .nullish();

const common = {
  name: z.string(),
  annotator_kind: z.enum(ANNOTATOR_KINDS as [AnnotatorKind, ...AnnotatorKind[]]),
  result,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  identifier: z.string().optional(),
};

/** One item of `{"data": [...]}` per route (the reference's SpanAnnotationData, TraceAnnotationData, …). */
export const annotationItem = {
  span: z.object({ ...common, span_id: z.string() }),
  trace: z.object({ ...common, trace_id: z.string() }),
  session: z.object({ ...common, session_id: z.string() }),
  // An integer is checked by the domain, which names the field with its rule.
  document: z.object({ ...common, span_id: z.string(), document_position: z.number() }),
} as const;

type Item = z.infer<(typeof annotationItem)['document']> | z.infer<(typeof annotationItem)['span']>;

/** A wire item as the domain's record. Target ids are trimmed (as the client does); the rest as sent. */
export const annotationFromJson = (target: AnnotationTarget, item: Record<string, unknown>): AnnotationRecord => {
  const i = item as Item & { trace_id?: string; session_id?: string; document_position?: number };
  const targetId = String(item[TARGET_FIELD[target]] ?? '').trim();
  return {
    target,
    targetId,
    documentPosition: target === 'document' ? (i.document_position ?? null) : null,
    name: i.name,
    annotatorKind: i.annotator_kind,
    label: i.result?.label ?? null,
    score: i.result?.score ?? null,
    explanation: i.result?.explanation ?? null,
    metadata: (i.metadata ?? {}) as JsonObject,
    identifier: i.identifier ?? '',
  };
};

const trimmed = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().min(1, 'must not be empty'));

/** `{"data": {...}}` of the notes routes. */
export const noteBody = {
  span: z.object({ data: z.object({ span_id: trimmed, note: trimmed, identifier: z.string().optional() }) }),
  trace: z.object({ data: z.object({ trace_id: trimmed, note: trimmed, identifier: z.string().optional() }) }),
  session: z.object({ data: z.object({ session_id: trimmed, note: trimmed, identifier: z.string().optional() }) }),
} as const;

/**
 * A note as the annotation it is: named `note`, by a human, the text as its explanation. Without
 * an identifier each note gets a fresh one (so every call adds a note, as in the reference).
 */
export const noteFromJson = (target: 'span' | 'trace' | 'session', data: Record<string, string | undefined>): AnnotationRecord => {
  const identifier = data.identifier?.trim() ?? '';
  return {
    target,
    targetId: data[TARGET_FIELD[target]]!,
    documentPosition: null,
    name: NOTE_NAME,
    annotatorKind: 'HUMAN',
    label: null,
    score: null,
    explanation: data.note!,
    metadata: {},
    identifier: identifier === '' ? `px-${target}-note:${randomUUID()}` : identifier,
  };
};

/** `annotationJson`'s shape (the target's id field, `span_id`/`trace_id`/`session_id`, passes unchecked). */
export const annotationSchema = z.object({
  id: z.string(),
  document_position: z.number().nullable().optional(),
  name: z.string(),
  annotator_kind: z.string(),
  result: z.object({ label: z.string().nullable(), score: z.number().nullable(), explanation: z.string().nullable() }),
  metadata: anyJson,
  identifier: z.string(),
  source: z.string(),
  user_id: z.string().nullable(),
  created_at: isoTime,
  updated_at: isoTime,
});

/** What a write answers per annotation: its id. */
export const annotationIdSchema = z.object({ id: z.string() });

/** A stored annotation as the reference's SpanAnnotation / TraceAnnotation / SessionAnnotation. */
export const annotationJson = (row: AnnotationRow) => ({
  id: toGlobalId(ANNOTATION_TYPE[row.target], String(row.id)),
  [TARGET_FIELD[row.target]]: row.target_id,
  ...(row.target === 'document' ? { document_position: row.document_position } : {}),
  name: row.name,
  annotator_kind: row.annotator_kind,
  result: { label: row.label, score: row.score, explanation: row.explanation },
  metadata: row.metadata,
  identifier: row.identifier,
  source: row.source,
  user_id: row.user_id === null ? null : userGlobalId(row.user_id),
  created_at: isoFromMicros(row.created_us),
  updated_at: isoFromMicros(row.updated_us),
});
