import http from 'node:http';

export type ExportResult =
  | { readonly kind: 'ok'; readonly status: 200; readonly body: Buffer }
  | { readonly kind: 'http'; readonly status: number; readonly retryAfterSeconds: number | null; readonly body: Buffer }
  | { readonly kind: 'network'; readonly error: Error };

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One OTLP/HTTP protobuf export; never throws. */
export const postExport = (url: string, body: Buffer, timeoutMs = 120_000): Promise<ExportResult> =>
  new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('error', (error) => resolve({ kind: 'network', error }));
        response.on('end', () => {
          const data = Buffer.concat(chunks);
          const status = response.statusCode ?? 0;
          if (status === 200) resolve({ kind: 'ok', status, body: data });
          else {
            const retry = Number(response.headers['retry-after']);
            resolve({ kind: 'http', status, retryAfterSeconds: Number.isFinite(retry) ? retry : null, body: data });
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => resolve({ kind: 'network', error }));
    request.end(body);
  });

export type SendStats = {
  /** Batches answered 200, in ack order. */
  readonly acked: number[];
  /** ms since the run started, per acked batch. */
  readonly ackTimes: number[];
  /** ms from sending to the 200 answer, per acked batch (the last attempt when retried). */
  readonly latencies: number[];
  /** 503 answers (retried after Retry-After). */
  busy: number;
  /** Other failures, by description; a failed batch is not retried unless it was a 503. */
  readonly failures: Map<string, number>;
  /** Batches whose request failed at the network level (e.g. the server was killed). */
  readonly lost: number[];
};

export type SendOptions = {
  readonly url: string;
  /** Number of batches; `body(i)` gives batch i's request body. */
  readonly batches: number;
  readonly body: (index: number) => Buffer;
  readonly concurrency: number;
  /** Stop taking new batches once this returns true (the batch in flight still finishes). */
  readonly shouldStop?: () => boolean;
  /** Called when a batch is acknowledged (HTTP 200). */
  readonly onAck?: (index: number) => void;
  /** Cap on a 503's wait, so a benchmark is not stalled by a generous Retry-After. */
  readonly maxRetryWaitMs?: number;
  /** Stop a sender after a network error (the SIGKILL check), instead of retrying. */
  readonly stopOnNetworkError?: boolean;
};

/**
 * `concurrency` senders take batches from one queue, in order, and POST them; a 503 is retried
 * after its Retry-After. Returns when every batch was answered (or the senders stopped).
 */
export const sendBatches = async (options: SendOptions): Promise<SendStats> => {
  const stats: SendStats = { acked: [], ackTimes: [], latencies: [], busy: 0, failures: new Map(), lost: [] };
  const started = performance.now();
  let next = 0;
  const fail = (what: string) => stats.failures.set(what, (stats.failures.get(what) ?? 0) + 1);
  const sender = async () => {
    while (next < options.batches && !options.shouldStop?.()) {
      const index = next++;
      const body = options.body(index);
      for (;;) {
        const sent = performance.now();
        const result = await postExport(options.url, body);
        if (result.kind === 'ok') {
          stats.acked.push(index);
          stats.ackTimes.push(performance.now() - started);
          stats.latencies.push(performance.now() - sent);
          options.onAck?.(index);
          break;
        }
        if (result.kind === 'http' && result.status === 503) {
          stats.busy++;
          const wait = Math.min((result.retryAfterSeconds ?? 1) * 1000, options.maxRetryWaitMs ?? 250);
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        if (result.kind === 'network') {
          stats.lost.push(index);
          fail(`network: ${result.error.message}`);
          if (options.stopOnNetworkError) return;
        } else {
          fail(`HTTP ${result.status}: ${result.body.toString('utf8').slice(0, 200)}`);
        }
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, sender));
  return stats;
};
