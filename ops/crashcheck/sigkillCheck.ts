import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeExportRequest } from '../bench/otlpEncoder.ts';
import { getJson, spanIdsOfTraces } from '../bench/restClient.ts';
import { createScratchDatabase } from '../bench/scratchDatabase.ts';
import { sendBatches, type SendStats } from '../bench/senders.ts';
import { startServerProcess, type ServerProcess } from '../bench/serverProcess.ts';
import { createSpanGenerator, type GeneratedSpan, type SpanGenerator } from '../bench/spanGenerator.ts';

/**
 * The durability check behind "an acknowledged span is never lost": run `loupe serve` as a child
 * process, keep concurrent exporters sending OTLP/protobuf batches, SIGKILL the server while
 * requests are in flight, restart it on the same working dir / database, wait for the
 * projections, and look up every span whose export request was answered 200 through REST.
 * Repeated for `rounds` kills; the spans acknowledged in every round are checked at the end.
 */

export type SigkillCheckOptions = {
  /** A postgres:// server URL to create a scratch database on; null = embedded PGlite. */
  readonly postgresServerUrl: string | null;
  readonly rounds?: number;
  readonly concurrency?: number;
  readonly batchSize?: number;
  /** input/output text size per span. */
  readonly textBytes?: number;
  /** Kill once this many requests were acknowledged in the round (plus a random 0–200 ms). */
  readonly killAfterAcks?: number;
  /** How long to wait for every acknowledged span to show up after the restart. */
  readonly catchUpTimeoutMs?: number;
  readonly log?: (message: string) => void;
};

export type SigkillRound = {
  readonly acknowledgedRequests: number;
  /** Requests cut off by the kill (no answer): their spans may or may not have been stored. */
  readonly unansweredRequests: number;
  readonly acknowledgedSpans: number;
  readonly exit: string;
};

export type SigkillReport = {
  readonly backend: 'pglite' | 'postgres';
  readonly rounds: readonly SigkillRound[];
  readonly acknowledgedSpans: number;
  readonly foundSpans: number;
  readonly missingSpans: number;
  /** Spans of unanswered requests that were stored anyway (allowed: the client would resend). */
  readonly unacknowledgedButStored: number;
  readonly missingExamples: readonly string[];
  /** Events the projections were behind the log when the restarted server first answered /readyz. */
  readonly lagAtRestart: string | null;
  readonly seconds: number;
};

const PROJECT = 'sigkill-check';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until /readyz reports no projection lag (or the timeout). */
const waitCaughtUp = async (server: ServerProcess, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { status, body } = await getJson<{ projectionLag?: string | null }>(`${server.url}/readyz`).catch(() => ({
      status: 0,
      body: { projectionLag: undefined },
    }));
    if (status === 200 && (body.projectionLag === '0' || body.projectionLag === null)) return;
    await pause(200);
  }
};

const sendUntilKilled = async (
  server: ServerProcess,
  generator: SpanGenerator,
  options: Required<Pick<SigkillCheckOptions, 'concurrency' | 'batchSize' | 'killAfterAcks'>>,
  log: (m: string) => void,
): Promise<{ stats: SendStats; batches: GeneratedSpan[][]; exit: string }> => {
  const batches: GeneratedSpan[][] = [];
  let pending: GeneratedSpan[] = [];
  const batchAt = (i: number): GeneratedSpan[] => {
    while (batches.length <= i) {
      while (pending.length < options.batchSize) pending.push(...generator.nextTrace());
      batches.push(pending.slice(0, options.batchSize));
      pending = pending.slice(options.batchSize);
    }
    return batches[i]!;
  };
  const kill: { done: Promise<string> | null } = { done: null };
  let acks = 0;
  const url = `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`;
  const stats = await sendBatches({
    url,
    batches: Number.MAX_SAFE_INTEGER,
    body: (i) => encodeExportRequest(batchAt(i), PROJECT),
    concurrency: options.concurrency,
    stopOnNetworkError: true,
    maxRetryWaitMs: 100,
    onAck: () => {
      acks++;
      if (acks === options.killAfterAcks) {
        const delay = Math.floor(Math.random() * 200);
        kill.done = pause(delay).then(() => {
          log(`SIGKILL after ${acks} acknowledged requests (+${delay} ms)`);
          return server.kill();
        });
      }
    },
  });
  // Every sender stops at its first network error, i.e. once the server is gone.
  const exit = await (kill.done ?? server.kill());
  return { stats, batches, exit };
};

export const runSigkillCheck = async (options: SigkillCheckOptions): Promise<SigkillReport> => {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const rounds = options.rounds ?? 2;
  const settings = {
    concurrency: options.concurrency ?? 4,
    batchSize: options.batchSize ?? 512,
    killAfterAcks: options.killAfterAcks ?? 20,
  };
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-sigkill-'));
  const scratch = options.postgresServerUrl ? await createScratchDatabase(options.postgresServerUrl, 'loupe_sigkill') : null;
  const env: Record<string, string> = { SERVICE_WORKING_DIR: workingDir };
  if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
  const generator = createSpanGenerator({ seed: Date.now() & 0xffff, textBytes: options.textBytes ?? 2048 });
  const acknowledged: GeneratedSpan[] = [];
  const unanswered: GeneratedSpan[] = [];
  const roundReports: SigkillRound[] = [];
  let server: ServerProcess | null = null;
  try {
    for (let round = 1; round <= rounds; round++) {
      server = await startServerProcess({ env, startTimeoutMs: 120_000 });
      log(`round ${round}: server pid ${server.pid} at ${server.url}`);
      const { stats, batches, exit } = await sendUntilKilled(server, generator, settings, log);
      server = null;
      const acked = stats.acked.flatMap((i) => batches[i]!);
      acknowledged.push(...acked);
      unanswered.push(...stats.lost.flatMap((i) => batches[i]!));
      const other = [...stats.failures].filter(([what]) => !what.startsWith('network'));
      if (other.length > 0) throw new Error(`unexpected answers before the kill: ${JSON.stringify(other)}`);
      roundReports.push({
        acknowledgedRequests: stats.acked.length,
        unansweredRequests: stats.lost.length,
        acknowledgedSpans: acked.length,
        exit,
      });
      log(
        `round ${round}: ${stats.acked.length} requests (${acked.length} spans) acknowledged, ${stats.lost.length} cut off; server ${exit}`,
      );
    }

    server = await startServerProcess({ env, startTimeoutMs: 120_000 });
    const firstReady = await getJson<{ projectionLag?: string | null }>(`${server.url}/readyz`).catch(() => null);
    const lagAtRestart = firstReady?.body.projectionLag ?? null;
    log(`restarted: pid ${server.pid}; projections ${lagAtRestart ?? '?'} events behind; waiting for them`);
    const wanted = new Set(acknowledged.map((s) => `${s.traceId}:${s.spanId}`));
    const traceIds = [...new Set([...acknowledged, ...unanswered].map((s) => s.traceId))];
    const deadline = Date.now() + (options.catchUpTimeoutMs ?? 120_000);
    let found = new Set<string>();
    let missing: string[] = [];
    for (;;) {
      await waitCaughtUp(server, Math.max(0, deadline - Date.now()));
      found = await spanIdsOfTraces(server.url, PROJECT, traceIds);
      missing = [...wanted].filter((id) => !found.has(id));
      if (missing.length === 0 || Date.now() > deadline) break;
      await pause(500);
    }
    const unacknowledgedButStored = unanswered.filter((s) => found.has(`${s.traceId}:${s.spanId}`)).length;
    await server.stop();
    server = null;
    return {
      backend: scratch ? 'postgres' : 'pglite',
      rounds: roundReports,
      acknowledgedSpans: wanted.size,
      foundSpans: wanted.size - missing.length,
      missingSpans: missing.length,
      unacknowledgedButStored,
      missingExamples: missing.slice(0, 5),
      lagAtRestart,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    if (server) log(`server output:\n${server.output().slice(-4000)}`);
    throw error;
  } finally {
    if (server) await server.kill();
    await scratch?.drop();
    await rm(workingDir, { recursive: true, force: true });
  }
};
