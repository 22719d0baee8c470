import { storableJson, storableMetadata } from '../base/storableJson.ts';
import { clippedText, MESSAGE_MAX_BYTES, NAME_MAX_BYTES, storableName, storableText } from '../base/storableText.ts';
import { DomainError } from '../errors.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import type { ExampleData, ExamplePatch } from './events.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuidOrNull = (v: unknown): string | null => (typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : null);

/** A JSON object as `jsonb` holds it (see storableJson); anything else is `{}`. */
export const storableObject = (v: unknown): JsonObject => storableMetadata(v);

/** Free text as stored: storable, at most MESSAGE_MAX_BYTES. */
export const storableDescription = (v: unknown): string | null => (typeof v === 'string' ? clippedText(v, MESSAGE_MAX_BYTES) : null);

/** Names (datasets, splits, labels, external ids, span ids) sit in indexes: storable, at most NAME_MAX_BYTES. */
export const storableDatasetName = (v: unknown): string => storableName(typeof v === 'string' ? v : '');

/**
 * Any recorded example (also one crafted into the log) as the read model can hold it: every
 * string storable, names cut to fit an index. The same content for an example the writer built,
 * which already went through these rules. Deterministic and idempotent.
 */
export const storableExample = (raw: unknown): ExampleData | null => {
  const r = isRecord(raw) ? raw : {};
  const exampleId = uuidOrNull(r.exampleId);
  if (exampleId === null) return null;
  return {
    exampleId,
    externalId: typeof r.externalId === 'string' ? storableName(r.externalId) : null,
    input: storableObject(r.input),
    output: storableObject(r.output),
    metadata: storableObject(r.metadata),
    splits: Array.isArray(r.splits) ? r.splits.filter((s): s is string => typeof s === 'string').map(storableName) : [],
    spanId: typeof r.spanId === 'string' && r.spanId !== '' ? storableName(r.spanId) : null,
  };
};

export const storablePatch = (raw: unknown): ExamplePatch | null => {
  const r = isRecord(raw) ? raw : {};
  const exampleId = uuidOrNull(r.exampleId);
  if (exampleId === null) return null;
  return { exampleId, input: storableObject(r.input), output: storableObject(r.output), metadata: storableObject(r.metadata) };
};

/** The writer's rule for a name: refused (not silently changed) when it would not be stored as given. */
export const checkName = (code: string, field: string, name: string): void => {
  if (name.trim() === '') throw new DomainError(code, `${field}: must not be empty`);
  if (storableText(name) !== name) throw new DomainError(code, `${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
  if (Buffer.byteLength(name, 'utf8') > NAME_MAX_BYTES)
    throw new DomainError(code, `${field}: must be at most ${NAME_MAX_BYTES} bytes of UTF-8`);
};

export const checkDescription = (field: string, value: string | null | undefined): void => {
  if (typeof value !== 'string') return;
  if (storableText(value) !== value)
    throw new DomainError('invalid_description', `${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
  if (Buffer.byteLength(value, 'utf8') > MESSAGE_MAX_BYTES)
    throw new DomainError('invalid_description', `${field}: must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`);
};

/** Example content made storable when it is built (strings with U+FFFD, numbers finite): what is acknowledged is what is kept. */
export const cleanExample = (e: ExampleData): ExampleData => ({
  ...e,
  externalId: e.externalId === null ? null : storableName(e.externalId),
  input: storableObject(e.input),
  output: storableObject(e.output),
  metadata: storableObject(e.metadata),
  splits: e.splits.map(storableName),
  spanId: e.spanId === null ? null : storableName(e.spanId),
});

export { storableJson };
