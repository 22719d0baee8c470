/**
 * Runs in a worker thread (see exportDecoder.ts): decodes an OTLP body and routes its spans with
 * the very functions the main thread would use, keeps the result, and hands it back in slices
 * when asked, so that no single message takes the main thread long to deserialize.
 */
import { parentPort } from 'node:worker_threads';
import { decodeAndRoute, type DecodedSpans, type DecodeJob, type WorkerReply, type WorkerRequest } from './decodeJob.ts';

const port = parentPort!;
const results = new Map<number, DecodedSpans>();

const reply = (message: WorkerReply) => port.postMessage(message);

const decode = (id: number, job: DecodeJob) => {
  try {
    const routed = decodeAndRoute(job);
    results.set(id, routed);
    reply({
      kind: 'routed',
      id,
      batches: routed.batches.map((b) => ({ projectName: b.projectName, resources: b.resources.length, spans: b.spans.length })),
      acceptedSpans: routed.acceptedSpans,
      rejectedSpans: routed.rejectedSpans,
      errorMessage: routed.errorMessage,
      ...(routed.phoenix ? { phoenix: routed.phoenix } : {}),
    });
  } catch (e) {
    const error = e as Error & { code?: unknown; headers?: unknown; expose?: unknown };
    reply({
      kind: 'failed',
      id,
      name: error?.name ?? 'Error',
      message: String(error?.message ?? e),
      code: typeof error?.code === 'string' ? error.code : null,
      ingest: error?.name === 'IngestError',
    });
  }
};

port.on('message', (message: WorkerRequest) => {
  if (message.kind === 'decode') return decode(message.id, message.job);
  const routed = results.get(message.id);
  if (message.kind === 'drop' || !routed) {
    results.delete(message.id);
    return;
  }
  const batch = routed.batches[message.batch]!;
  const items = (message.what === 'resources' ? batch.resources : batch.spans).slice(message.from, message.from + message.count);
  reply({ kind: 'slice', id: message.id, items });
});
