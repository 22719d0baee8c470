import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExampleData } from './events.ts';

/** Parsed chunks of an upload kept on disk, one JSON line each, until all of them have parsed. */
export type UploadSpool = {
  /** The chunks as written, read back one at a time. */
  readonly chunks: () => AsyncIterable<readonly ExampleData[]>;
  /** Removes the file (also when `chunks` was never read). */
  readonly dispose: () => Promise<void>;
};

/**
 * The file's lines, read as they are consumed. Not readline: its async iterator reads ahead up to
 * 1,024 lines while the consumer waits (here, 1,024 chunks of 500 examples: the whole upload).
 */
async function* linesOf(path: string): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  for await (const part of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = part.indexOf(10); nl !== -1; nl = part.indexOf(10, from)) {
      parts.push(part.subarray(from, nl));
      yield Buffer.concat(parts);
      parts = [];
      from = nl + 1;
    }
    if (from < part.length) parts.push(part.subarray(from));
  }
  if (parts.length > 0) yield Buffer.concat(parts);
}

/**
 * Writes every chunk to a file in a new directory under `dir` and resolves once the last one is
 * written; a chunk that fails to parse rejects (and removes the file). So a file refused half way
 * (a bad row at line 60,000) is refused before anything is appended: it leaves no staged examples
 * in the log or the read model, and memory holds one chunk at a time, as when streaming straight
 * to the store.
 */
export const spoolChunks = async (chunks: AsyncIterable<readonly ExampleData[]>, dir: string): Promise<UploadSpool> => {
  const folder = await mkdtemp(join(dir, 'loupe-upload-'));
  const path = join(folder, 'examples.jsonl');
  const dispose = () => rm(folder, { recursive: true, force: true });
  const out = createWriteStream(path);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => {});
  const write = (line: string) =>
    out.write(line) ? Promise.resolve() : Promise.race([new Promise<void>((resolve) => out.once('drain', () => resolve())), failed]);
  try {
    for await (const chunk of chunks) if (chunk.length > 0) await write(`${JSON.stringify(chunk)}\n`);
    await Promise.race([new Promise<void>((resolve) => out.end(() => resolve())), failed]);
  } catch (error) {
    out.destroy();
    await dispose();
    throw error;
  }
  return {
    chunks: async function* () {
      for await (const line of linesOf(path)) yield JSON.parse(line.toString('utf8')) as ExampleData[];
    },
    dispose,
  };
};
