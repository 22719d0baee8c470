import type { IncomingMessage } from 'node:http';
import { createInflater, decompressedTooLarge, malformedCompression, type ContentEncoding } from './decompress.ts';
import type { IngestLease } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';

export const bodyTooLarge = (maxBytes: number): IngestError =>
  // The rest of the body is left unread, so the connection cannot be reused.
  new IngestError('payload_too_large', `request body exceeds the limit of ${maxBytes} bytes`, { Connection: 'close' });

/** How long and how slowly a client may take to send its body. */
export type BodyPace = {
  /** The whole body must have arrived within this. */
  readonly timeoutMs: number;
  /** Once `graceMs` have passed, a body arriving slower than this on average is refused. */
  readonly minBytesPerSecond: number;
  readonly graceMs: number;
};

export type ReadBodyOptions = {
  /** Limit for the body as sent and again once decompressed. */
  readonly maxBytes: number;
  readonly encoding: ContentEncoding;
  /** Grown by every byte kept in memory (the inflated bytes for a compressed body) as it arrives. */
  readonly lease: IngestLease;
  /** The refusal when the lease cannot grow (the in-flight budget is spent). */
  readonly busy: () => IngestError;
  readonly pace: BodyPace;
};

/** A refusal sent before the body was read to its end: the connection cannot be reused. */
const closing = (e: IngestError): IngestError =>
  e.headers.Connection === 'close' ? e : new IngestError(e.code, e.message, { ...e.headers, Connection: 'close' });

/**
 * Reads the request body, inflating it on the way when it is compressed, and refuses it as soon
 * as it passes `maxBytes` (as sent or inflated), outgrows the in-flight budget, or arrives too
 * slowly: an endless, lying, zip-bombed or trickled upload never gets buffered, and holds budget
 * only for what it actually sent. The stream is paused, not destroyed, so the refusal still goes out
 * (a refusal for capacity reads the rest of the body and drops it: see discardRest).
 */
export const readBody = (req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const { maxBytes, lease, pace } = options;
    const started = Date.now();
    const chunks: Buffer[] = [];
    let rawSize = 0;
    let keptSize = 0;
    let settled = false;
    let rawEnded = false;

    // Compressed: the inflater is created once the first two bytes tell zlib from raw deflate.
    let inflater: ReturnType<typeof createInflater> | null = null;
    let head: Buffer | null = options.encoding === 'identity' ? null : Buffer.alloc(0);

    const keep = (chunk: Buffer, tooLarge: (max: number) => IngestError): boolean => {
      keptSize += chunk.length;
      if (keptSize > maxBytes) return fail(tooLarge(maxBytes));
      if (!lease.grow(keptSize)) return fail(options.busy());
      chunks.push(chunk);
      return true;
    };

    const finish = () => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, keptSize));
    };

    const fail = (e: IngestError): false => {
      if (settled) return false;
      settled = true;
      cleanup();
      if (inflater) {
        inflater.removeAllListeners();
        inflater.on('error', () => undefined);
        inflater.destroy();
      }
      chunks.length = 0;
      if (rawEnded) {
        reject(e);
      } else if (e.code === 'server_busy') {
        discardRest();
        reject(e);
      } else {
        req.pause();
        reject(closing(e));
      }
      return false;
    };

    // A refusal for capacity (the in-flight budget, the projection lag gate) must reach the
    // exporter, or it cannot back off and retry: a server that stops reading and closes makes the
    // exporter's next write fail (EPIPE), and the reset that follows discards the 503 it had not
    // read yet (seen in a 1M-span load: 7 of 1,954 batches failed so). So the rest of the body is
    // read and dropped, holding nothing, and the connection stays usable. A body that runs past
    // the request limit or the pace deadline is cut off as any other.
    const discardRest = () => {
      let discarded = rawSize;
      const deadline = setTimeout(() => req.destroy(), Math.max(0, pace.timeoutMs - (Date.now() - started)));
      const stop = () => clearTimeout(deadline);
      req.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > maxBytes) req.destroy();
      });
      req.once('end', stop);
      req.once('close', stop);
      req.on('error', () => undefined);
      req.resume();
    };

    const startInflater = (first: Buffer) => {
      const z = createInflater(options.encoding as 'gzip' | 'deflate', first);
      z.on('data', (out: Buffer) => keep(out, decompressedTooLarge));
      z.on('error', (e) => fail(malformedCompression(options.encoding, e)));
      z.on('end', finish);
      z.on('drain', () => {
        if (!settled && !rawEnded) req.resume();
      });
      inflater = z;
      feed(first);
    };

    const feed = (chunk: Buffer) => {
      // Backpressure: while zlib works through what it has, stop reading the socket.
      if (!inflater!.write(chunk)) req.pause();
    };

    const onData = (chunk: Buffer) => {
      if (settled) return;
      rawSize += chunk.length;
      if (rawSize > maxBytes) {
        fail(bodyTooLarge(maxBytes));
        return;
      }
      if (head === null && inflater === null) {
        keep(chunk, bodyTooLarge);
      } else if (inflater === null) {
        head = Buffer.concat([head!, chunk]);
        if (head.length >= 2) {
          const first = head;
          head = null;
          startInflater(first);
        }
      } else {
        feed(chunk);
      }
    };

    const onEnd = () => {
      rawEnded = true;
      clearInterval(pacer);
      if (settled) return;
      if (head !== null) {
        const first = head;
        head = null;
        if (first.length === 0) return fail(malformedCompression(options.encoding, new Error('the body is empty')));
        startInflater(first);
      }
      if (inflater) inflater.end();
      else finish();
    };

    const onError = (e: Error) => fail(new IngestError('malformed_request', `request body could not be read: ${e.message}`));
    const onAborted = () => onError(new Error('the client aborted the request'));
    const onClose = () => {
      if (!req.complete) onAborted();
    };

    const checkPace = () => {
      const elapsedMs = Date.now() - started;
      if (elapsedMs > pace.timeoutMs) {
        fail(new IngestError('request_timeout', `the request body did not arrive within ${Math.round(pace.timeoutMs / 1000)} s`));
      } else if (elapsedMs > pace.graceMs && rawSize < (pace.minBytesPerSecond * elapsedMs) / 1000) {
        fail(
          new IngestError(
            'request_timeout',
            `the request body arrived slower than the minimum of ${pace.minBytesPerSecond} bytes/s (${rawSize} bytes in ${(elapsedMs / 1000).toFixed(1)} s)`,
          ),
        );
      }
    };
    const pacer = setInterval(checkPace, Math.max(10, Math.min(1000, pace.graceMs / 2, pace.timeoutMs / 2)));

    function cleanup() {
      clearInterval(pacer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onClose);
    }

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
