/**
 * Experiment runs benchmark: `npm run bench:experiments [-- options]`.
 *
 * Starts `loupe serve` as a child process (a scratch Postgres database, or embedded PGlite in a
 * temp working dir), uploads a dataset of `--runs` examples (JSON body), creates an experiment on
 * it, then `--clients` concurrent clients post, for each example, a run
 * (`POST /v1/experiments/{id}/runs`) and two evaluations of it (`POST /v1/experiment_evaluations`),
 * as `runExperiment` does. Each answer comes once the write is readable. Prints runs/s
 * acknowledged (a run counts when it and both its evaluations were answered), the latency of the
 * three requests, and the server's peak RSS. A 503 (stored, not readable in time) is counted; an
 * evaluation is then posted again (an upsert), a run is not (its evaluations are skipped).
 *
 *   --backend postgres|pglite   (default postgres)
 *   --runs N                    (default 10000)
 *   --clients N                 (default 4)
 *   --pg-url URL                server for the scratch database (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --keep                      keep the scratch database / working dir
 *   --no-heap-flags             without the server's V8 heap flags (ops/serverNodeFlags.ts), to compare
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
    runs: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '4' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    keep: { type: 'boolean', default: false },
    'no-heap-flags': { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const clients = Number(args.clients);

/** VmRSS / VmHWM of a process in MB; NaN once it is gone. */
const statusMb = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
};

/** Answers 503 (stored, not yet readable in time): counted, and evaluations (upserts) retried. */
const notYetVisible = { run: 0, evaluation: 0 };
class NotYetVisible extends Error {}

const post = async <T>(url: string, body: unknown): Promise<{ ms: number; data: T }> => {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  if (response.status === 503) throw new NotYetVisible(text);
  if (!response.ok) throw new Error(`POST ${url} → ${response.status}: ${text.slice(0, 300)}`);
  return { ms: performance.now() - started, data: (JSON.parse(text) as { data: T }).data };
};

const workingDir = await mkdtemp(join(tmpdir(), 'loupe-bench-experiments-'));
const scratch = args.backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_exp') : null;
const passThrough = passedOnEnvironment();
const env: Record<string, string> = { ...passThrough, SERVICE_WORKING_DIR: workingDir };
if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
try {
  const server = await startServerProcess({ env, startTimeoutMs: 120_000, nodeFlags: args['no-heap-flags'] ? [] : SERVER_NODE_FLAGS });
  try {
    const inputs = Array.from({ length: runs }, (_, i) => ({ question: `question ${i}`, context: `context ${i} `.repeat(20) }));
    const outputs = inputs.map((_, i) => ({ answer: `answer ${i}` }));
    const dataset = await post<{ dataset_id: string; version_id: string }>(`${server.url}/v1/datasets/upload?sync=true`, {
      action: 'create',
      name: 'bench-experiments',
      inputs,
      outputs,
    });
    const examples = (await (await fetch(`${server.url}/v1/datasets/${dataset.data.dataset_id}/examples`)).json()) as {
      data: { examples: { id: string }[] };
    };
    const experiment = await post<{ id: string }>(`${server.url}/v1/datasets/${dataset.data.dataset_id}/experiments`, {
      name: 'bench',
      repetitions: 1,
    });
    process.stdout.write(`dataset of ${examples.data.examples.length} examples, experiment ${experiment.data.id} (${args.backend})\n`);

    const before = statusMb(server.pid, 'VmRSS');
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, statusMb(server.pid, 'VmRSS') || 0);
    }, 100);
    const latency = { run: [] as number[], evaluation: [] as number[] };
    const queue = examples.data.examples.map((e) => e.id);
    let acknowledged = 0;
    const started = performance.now();
    const client = async () => {
      for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
        const t = new Date().toISOString();
        let run: { ms: number; data: { id: string } };
        try {
          run = await post<{ id: string }>(`${server.url}/v1/experiments/${experiment.data.id}/runs`, {
            dataset_example_id: id,
            output: { answer: `output for ${id}` },
            repetition_number: 1,
            start_time: t,
            end_time: t,
          });
        } catch (error) {
          if (!(error instanceof NotYetVisible)) throw error;
          notYetVisible.run++; // stored, but its id is not known: no evaluations for it
          continue;
        }
        latency.run.push(run.ms);
        for (const name of ['correctness', 'relevance']) {
          for (;;) {
            try {
              const evaluation = await post(`${server.url}/v1/experiment_evaluations`, {
                experiment_run_id: run.data.id,
                name,
                annotator_kind: 'CODE',
                start_time: t,
                end_time: t,
                result: { label: 'ok', score: 1, explanation: null },
              });
              latency.evaluation.push(evaluation.ms);
              break;
            } catch (error) {
              if (!(error instanceof NotYetVisible)) throw error;
              notYetVisible.evaluation++;
            }
          }
        }
        acknowledged++;
      }
    };
    try {
      await Promise.all(Array.from({ length: clients }, client));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    const result = {
      runs: acknowledged,
      evaluations: latency.evaluation.length,
      clients,
      seconds: Number(seconds.toFixed(1)),
      runsPerSecond: Number((acknowledged / seconds).toFixed(1)),
      requestsPerSecond: Number(((acknowledged + latency.evaluation.length) / seconds).toFixed(1)),
      runMs: { p50: Math.round(percentile(latency.run, 50)), p95: Math.round(percentile(latency.run, 95)) },
      evaluationMs: { p50: Math.round(percentile(latency.evaluation, 50)), p95: Math.round(percentile(latency.evaluation, 95)) },
      answered503: notYetVisible,
      rssBeforeMb: Math.round(before),
      rssPeakMb: Math.round(peak),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.stop();
  }
} finally {
  if (!args.keep) {
    await rm(workingDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
