import { createHash } from 'node:crypto';

const canonical = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
};

/**
 * The content hash of an example (sha256 of canonical JSON of input, metadata, output; first 16
 * bytes, as the reference): an uploaded example with the hash of one the dataset has is not added again.
 */
export const exampleHash = (e: { readonly input: unknown; readonly output: unknown; readonly metadata: unknown }): string =>
  createHash('sha256')
    .update(JSON.stringify(canonical({ input: e.input, metadata: e.metadata, output: e.output })))
    .digest('hex')
    .slice(0, 32);
