/**
 * Dataset upload benchmark: `npm run bench:datasets [-- options]`.
 *
 * Starts `loupe serve` as a child process (a scratch Postgres database, or embedded PGlite in a
 * temp working dir), writes a CSV of `--rows` rows (~1 KB each: question, answer, context,
 * topic, split) to a temp file, streams it as a multipart upload (`POST /v1/datasets/upload
 * ?sync=true`, answered once the version is readable), and prints the seconds it took and the
 * server's resident memory (VmRSS sampled every 50 ms, VmHWM) before, at the peak and after.
 * Then it reads the examples at that version (`GET /v1/datasets/{id}/examples?version_id=`)
 * `--reads` times and prints p50 / p95.
 *
 *   --backend postgres|pglite   (default postgres)
 *   --rows N                    (default 100000)
 *   --reads N                   examples reads at the version (default 10)
 *   --pg-url URL                server for the scratch database (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --keep                      keep the scratch database / working dir
 *   --verbose                   print RSS, JS heap and external memory every second of the upload,
 *                               and at the end what the server printed
 *   --node-flag FLAG            extra node/V8 flag for the server (repeatable), e.g. --trace-gc
 *   --no-heap-flags             without the server's V8 heap flags (ops/serverNodeFlags.ts), to compare
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { SERVER_NODE_FLAGS } from '../serverNodeFlags.ts';
import { startServerProcess, passedOnEnvironment } from './serverProcess.ts';
import { percentile } from './percentile.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    rows: { type: 'string', default: '100000' },
    reads: { type: 'string', default: '10' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    'node-flag': { type: 'string', multiple: true, default: [] },
    'no-heap-flags': { type: 'boolean', default: false },
  },
});
const rows = Number(args.rows);

/** VmRSS / VmHWM of a process in MB; NaN once it is gone. */
const statusMb = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
};

const words = 'the of and to in is was for on that with as by at from this be are or an it not which have'.split(' ');
const text = (seed: number, length: number): string => {
  let out = '';
  for (let i = 0; out.length < length; i++) out += `${words[(seed * 31 + i * 7) % words.length]} `;
  return out.slice(0, length);
};
const csvCell = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** ~1 KB per row, every row different (so none is dropped as already present). */
const writeCsv = async (path: string): Promise<number> => {
  const out = createWriteStream(path);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('question,answer,context,topic,split\n');
  for (let i = 0; i < rows; i++)
    await write(
      `${[`Question ${i}: ${text(i, 180)}`, text(i + 1, 300), text(i + 2, 480), `topic-${i % 50}`, i % 10 === 0 ? 'test' : 'train'].map(csvCell).join(',')}\n`,
    );
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return (await stat(path)).size;
};

/** The file as a multipart body streamed from disk (never read whole). */
const multipartBody = (path: string, boundary: string): ReadableStream<Uint8Array> => {
  const fields: Record<string, string[]> = {
    action: ['create'],
    name: ['bench-upload'],
    input_keys: ['question', 'context'],
    output_keys: ['answer'],
    metadata_keys: ['topic'],
    split_keys: ['split'],
  };
  let head = '';
  for (const [k, vs] of Object.entries(fields))
    for (const v of vs) head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  const encoder = new TextEncoder();
  let file: Awaited<ReturnType<typeof open>> | null = null;
  let state: 'head' | 'file' | 'done' = 'head';
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (state === 'head') {
        controller.enqueue(encoder.encode(head));
        file = await open(path);
        state = 'file';
        return;
      }
      if (state === 'file' && file !== null) {
        const buffer = new Uint8Array(256 * 1024);
        const { bytesRead } = await file.read(buffer, 0, buffer.length);
        if (bytesRead > 0) {
          controller.enqueue(buffer.subarray(0, bytesRead));
          return;
        }
        await file.close();
        controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
        state = 'done';
        controller.close();
      }
    },
  });
};

const workingDir = await mkdtemp(join(tmpdir(), 'loupe-bench-datasets-'));
const csvPath = join(workingDir, 'upload.csv');
const scratch = args.backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_ds') : null;
const passThrough = passedOnEnvironment();
const env: Record<string, string> = { ...passThrough, SERVICE_WORKING_DIR: join(workingDir, 'server') };
if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
try {
  const fileBytes = await writeCsv(csvPath);
  process.stdout.write(`CSV: ${rows} rows, ${(fileBytes / 1024 / 1024).toFixed(1)} MB (${args.backend})\n`);
  const server = await startServerProcess({
    env,
    startTimeoutMs: 120_000,
    nodeFlags: [...(args['no-heap-flags'] ? [] : SERVER_NODE_FLAGS), ...args['node-flag']!],
  });
  try {
    await new Promise((r) => setTimeout(r, 5_000)); // let the start-up settle
    const before = statusMb(server.pid, 'VmRSS');
    const hwmBefore = statusMb(server.pid, 'VmHWM');
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, statusMb(server.pid, 'VmRSS'));
    }, 50);
    // What the memory is, every second, from the server's own /metrics (JS heap, memory outside it).
    const heap: { t: number; rssMb: number; heapUsedMb: number; heapTotalMb: number; externalMb: number }[] = [];
    const t0 = performance.now();
    const heapSampler = setInterval(async () => {
      const metrics = await fetch(`${server.url}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      const metric = (name: string) =>
        Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN) / 1024 / 1024);
      heap.push({
        t: Math.round((performance.now() - t0) / 1000),
        rssMb: Math.round(statusMb(server.pid, 'VmRSS')),
        heapUsedMb: metric('nodejs_heap_size_used_bytes'),
        heapTotalMb: metric('nodejs_heap_size_total_bytes'),
        externalMb: metric('nodejs_external_memory_bytes'),
      });
    }, 1000);
    const boundary = `----loupebench${Date.now()}`;
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/datasets/upload?sync=true`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(csvPath, boundary),
      duplex: 'half',
      signal: AbortSignal.timeout(30 * 60_000),
    } as RequestInit);
    const answer = await response.text();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    clearInterval(heapSampler);
    peak = Math.max(peak, statusMb(server.pid, 'VmRSS'));
    if (response.status !== 200) throw new Error(`upload → ${response.status}: ${answer.slice(0, 500)}`);
    const { data } = JSON.parse(answer) as { data: { dataset_id: string; version_id: string; num_created_examples: number } };
    const upload = {
      rows,
      fileMb: Math.round(fileBytes / 1024 / 1024),
      seconds: Number(seconds.toFixed(1)),
      created: data.num_created_examples,
      rssBeforeMb: Math.round(before),
      rssPeakMb: Math.round(peak),
      rssGrowthMb: Math.round(peak - before),
      vmHwmBeforeMb: Math.round(hwmBefore),
      vmHwmAfterMb: Math.round(statusMb(server.pid, 'VmHWM')),
      rssAfterMb: Math.round(statusMb(server.pid, 'VmRSS')),
    };
    if (args.verbose) for (const h of heap) process.stdout.write(`  ${JSON.stringify(h)}\n`);
    process.stdout.write(`upload: ${JSON.stringify(upload)}\n`);

    const times: number[] = [];
    let count = 0;
    for (let i = 0; i < Number(args.reads); i++) {
      const t = performance.now();
      const page = await fetch(`${server.url}/v1/datasets/${data.dataset_id}/examples?version_id=${data.version_id}`, {
        signal: AbortSignal.timeout(5 * 60_000),
      });
      if (!page.ok) throw new Error(`examples at the version → ${page.status}: ${(await page.text()).slice(0, 300)}`);
      const body = (await page.json()) as { data: { examples: unknown[] } };
      times.push(performance.now() - t);
      count = body.data.examples.length;
    }
    const reads = {
      examples: count,
      p50Ms: Math.round(percentile(times, 50)),
      p95Ms: Math.round(percentile(times, 95)),
      rssAfterReadsMb: Math.round(statusMb(server.pid, 'VmRSS')),
    };
    process.stdout.write(`examples at the version: ${JSON.stringify(reads)}\n`);
  } finally {
    await server.stop();
    if (args.verbose) process.stdout.write(server.output());
  }
} finally {
  if (!args.keep) {
    await rm(workingDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
