import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import type { InputMapping } from './events.ts';

export type { InputMapping } from './events.ts';

export const EMPTY_MAPPING: InputMapping = { pathMapping: {}, literalMapping: {} };

/** What a path may start with, per kind of subject. */
export const PATH_ROOTS = {
  span: ['attributes', 'name', 'span_kind', 'status_code', 'status_message', 'span_id', 'trace_id', 'start_time', 'end_time'],
  trace: ['attributes', 'name', 'span_kind', 'status_code', 'trace_id', 'start_time', 'end_time'],
  session: ['session_id', 'input', 'output', 'turns'],
  run: ['input', 'output', 'expected', 'reference', 'metadata', 'error'],
} as const;
export type MappingSubject = keyof typeof PATH_ROOTS;

const SEGMENT = /^[^\s]{1,200}$/;

/** Problems of a mapping, each naming its field (`path_mapping.output: ...`). */
export const mappingProblems = (mapping: InputMapping, subject: MappingSubject): { field: string; message: string }[] => {
  const problems: { field: string; message: string }[] = [];
  const roots: readonly string[] = PATH_ROOTS[subject];
  for (const [name, path] of Object.entries(mapping.pathMapping)) {
    const field = `input_mapping.path_mapping.${name}`;
    const segments = path.split('.');
    if (path === '' || !segments.every((s) => SEGMENT.test(s))) problems.push({ field, message: 'must be a dotted path' });
    else if (!roots.includes(segments[0]!))
      problems.push({ field, message: `"${path}" maps to nothing: a path starts with one of ${roots.join(', ')}` });
  }
  return problems;
};

/**
 * The value at `path` in `subject`. Span attributes are stored flat (`input.value` is one key), so
 * under `attributes` the longest dotted key that exists is taken, then nested fields below it.
 */
export const valueAtPath = (subject: JsonObject, path: string): JsonValue | undefined => {
  let here: JsonValue | undefined = subject;
  const segments = path.split('.');
  for (let i = 0; i < segments.length && here !== undefined; ) {
    if (here === null || typeof here !== 'object' || Array.isArray(here)) {
      if (Array.isArray(here) && /^\d+$/.test(segments[i]!)) {
        here = (here as readonly JsonValue[])[Number(segments[i])];
        i++;
        continue;
      }
      return undefined;
    }
    const object = here as JsonObject;
    let taken = 0;
    for (let j = segments.length; j > i; j--) {
      const key = segments.slice(i, j).join('.');
      if (Object.hasOwn(object, key)) {
        here = object[key];
        taken = j - i;
        break;
      }
    }
    if (taken === 0) return undefined;
    i += taken;
  }
  return here;
};

/** A JSON string is read as its value (span input/output values are JSON text more often than not). */
const parsedIfJson = (value: JsonValue | undefined): JsonValue | undefined => {
  if (typeof value !== 'string') return value;
  const t = value.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return value;
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    return value;
  }
};

/** The evaluator's arguments: the defaults, then the path mapping, then the literals. */
export const mappedArguments = (
  subject: JsonObject,
  defaults: Readonly<Record<string, string>>,
  mapping: InputMapping,
): Record<string, JsonValue> => {
  const out: Record<string, JsonValue> = {};
  for (const [name, path] of Object.entries({ ...defaults, ...mapping.pathMapping })) {
    const value = parsedIfJson(valueAtPath(subject, path));
    out[name] = value === undefined ? null : value;
  }
  for (const [name, value] of Object.entries(mapping.literalMapping)) out[name] = value;
  return out;
};
