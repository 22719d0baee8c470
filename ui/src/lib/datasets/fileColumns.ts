/**
 * The column names of an upload file, read in the browser for the column-mapping step: the CSV
 * header line (quoted fields and "" escapes understood, a byte-order mark skipped), or the keys of a JSONL file's first object.
 * Only the file's first 64 KiB is read, so a large file is never loaded whole.
 */
export type UploadFormat = 'csv' | 'jsonl';

export const formatOf = (fileName: string): UploadFormat | null => {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return null;
};

/** The fields of a CSV's first record (RFC 4180: a quoted field may hold commas, quotes and newlines). */
export const csvHeader = (text: string): string[] => {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') break;
    else field += c;
  }
  fields.push(field);
  // Names kept exactly as the server reads them (no trimming), so a mapped key always matches; a
  // repeated name is offered once (the server refuses such a header, naming the column).
  return [...new Set(fields.filter((f) => f !== ''))];
};

/** The keys of the first JSON object line. */
export const jsonlKeys = (text: string): string[] => {
  const first = text.split(/\r?\n/).find((line) => line.trim() !== '');
  if (first === undefined) return [];
  const parsed: unknown = JSON.parse(first);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The first line is not a JSON object');
  return Object.keys(parsed);
};

export const columnsOf = async (file: File, format: UploadFormat): Promise<string[]> => {
  const text = await file.slice(0, 64 * 1024).text();
  return format === 'csv' ? csvHeader(text) : jsonlKeys(text);
};
