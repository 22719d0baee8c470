import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { parse } from 'csv-parse';
import type { NewExample } from '../../../domain/datasets/uploadDataset.ts';
import type { JsonObject, JsonValue } from '../../../domain/base/jsonValue.ts';
import { HttpError } from '../../http/httpError.ts';

/** How the columns (CSV) or keys (JSONL) of a file map to an example. */
export type UploadKeys = {
  readonly inputKeys: readonly string[];
  readonly outputKeys: readonly string[];
  readonly metadataKeys: readonly string[];
  readonly splitKey: string | null;
  readonly spanIdKey: string | null;
  readonly exampleIdKey: string | null;
};

/** Examples per staged event: small enough for one INSERT, large enough that 100,000 rows are 200 events. */
export const CHUNK_SIZE = 500;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A CSV cell: empty is absent; one that reads as a JSON object or array is that value. */
const cellValue = (cell: unknown): JsonValue | undefined => {
  if (typeof cell !== 'string' || cell === '') return undefined;
  const t = cell.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as JsonValue;
    } catch {
      return cell;
    }
  }
  return cell;
};

const bucket = (row: Record<string, unknown>, keys: readonly string[], read: (v: unknown) => JsonValue | undefined): JsonObject => {
  const out: Record<string, JsonValue> = {};
  for (const key of keys) {
    const v = read(row[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
};

const splitsOf = (v: unknown): string[] => {
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      return splitsOf(JSON.parse(v));
    } catch {
      return [v];
    }
  }
  if (Array.isArray(v)) return v.filter((s): s is string => typeof s === 'string' && s !== '');
  return typeof v === 'string' && v !== '' ? [v] : [];
};

const textOf = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

const toExample = (row: Record<string, unknown>, keys: UploadKeys, read: (v: unknown) => JsonValue | undefined): NewExample => ({
  externalId: keys.exampleIdKey === null ? null : textOf(row[keys.exampleIdKey]),
  input: bucket(row, keys.inputKeys, read),
  output: bucket(row, keys.outputKeys, read),
  metadata: bucket(row, keys.metadataKeys, read),
  splits: keys.splitKey === null ? [] : splitsOf(row[keys.splitKey]),
  spanId: keys.spanIdKey === null ? null : textOf(row[keys.spanIdKey]),
});

const namedKeys = (keys: UploadKeys): string[] =>
  [...keys.inputKeys, ...keys.outputKeys, ...keys.metadataKeys, keys.splitKey, keys.spanIdKey, keys.exampleIdKey].filter(
    (k): k is string => k !== null,
  );

/** Undoes the file part's `Content-Encoding` (gzip, deflate), as the reference accepts. */
export const decoded = (stream: Readable, encoding: string | undefined): Readable => {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === '' || e === 'identity') return stream;
  if (e === 'gzip') return stream.pipe(createGunzip());
  if (e === 'deflate') return stream.pipe(createInflate());
  throw new HttpError(415, 'unsupported_content_encoding', `file: Content-Encoding "${encoding}" is not supported (gzip or deflate)`);
};

/**
 * A CSV file as chunks of examples, parsed as it streams in (csv-parse): the header must name
 * every key (400 naming the missing column); a row that does not parse is a 400 with its line.
 */
export async function* csvExamples(file: Readable, keys: UploadKeys): AsyncGenerator<NewExample[]> {
  // Set by the header callback (a closure), read when the parser fails because of it.
  const header: { missing: string | null; duplicate: string | null } = { missing: null, duplicate: null };
  const parser = file.pipe(
    parse({
      bom: true,
      relax_column_count: false,
      skip_empty_lines: true,
      columns: (columns: string[]) => {
        const seen = new Set<string>();
        for (const c of columns) {
          if (seen.has(c)) header.duplicate ??= c;
          seen.add(c);
        }
        header.missing = namedKeys(keys).find((k) => !seen.has(k)) ?? null;
        if (header.missing !== null || header.duplicate !== null) throw new Error('header');
        return columns;
      },
    }),
  );
  file.on('error', (error) => parser.destroy(error));
  let chunk: NewExample[] = [];
  try {
    for await (const row of parser as AsyncIterable<Record<string, string>>) {
      chunk.push(toExample(row, keys, cellValue));
      if (chunk.length >= CHUNK_SIZE) {
        yield chunk;
        chunk = [];
      }
    }
  } catch (error) {
    if (header.missing !== null)
      throw new HttpError(400, 'missing_column', `file: the CSV has no column "${header.missing}" (named in the keys)`);
    if (header.duplicate !== null)
      throw new HttpError(400, 'duplicate_column', `file: the CSV header names the column "${header.duplicate}" twice`);
    if (error instanceof HttpError) throw error;
    const e = error as Error & { lines?: number; code?: string };
    throw new HttpError(400, 'malformed_csv', `file: the CSV does not parse${e.lines ? ` at line ${e.lines}` : ''}: ${e.message}`);
  }
  if (chunk.length > 0) yield chunk;
}

const asIs = (v: unknown): JsonValue | undefined => (v === undefined ? undefined : (v as JsonValue));

/** The stream's lines (LF or CRLF), as they arrive; the last one without a newline too. */
async function* linesOf(file: Readable): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  for await (const part of file as AsyncIterable<Buffer>) {
    rest += decoder.decode(part, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  rest += decoder.decode();
  if (rest !== '') yield rest;
}

/** A JSONL file as chunks of examples, line by line: a line that is not a JSON object is a 400 naming it. */
export async function* jsonlExamples(file: Readable, keys: UploadKeys): AsyncGenerator<NewExample[]> {
  let chunk: NewExample[] = [];
  let n = 0;
  for await (const line of linesOf(file)) {
    n++;
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new HttpError(400, 'malformed_jsonl', `file: line ${n} is not valid JSON: ${(error as Error).message}`);
    }
    if (!isRecord(row)) throw new HttpError(400, 'malformed_jsonl', `file: line ${n} is not a JSON object`);
    chunk.push(toExample(row, keys, asIs));
    if (chunk.length >= CHUNK_SIZE) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Examples given whole (the JSON body): cut into chunks like a file. */
export async function* listedExamples(examples: readonly NewExample[]): AsyncGenerator<NewExample[]> {
  for (let i = 0; i < examples.length; i += CHUNK_SIZE) yield examples.slice(i, i + CHUNK_SIZE);
}
