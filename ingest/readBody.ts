import type { IncomingMessage } from 'node:http';
import { IngestError } from './ingestError.ts';

export const bodyTooLarge = (maxBytes: number): IngestError =>
  // The rest of the body is left unread, so the connection cannot be reused.
  new IngestError('payload_too_large', `request body exceeds the limit of ${maxBytes} bytes`, { Connection: 'close' });

/**
 * Reads the raw request body, refusing it as soon as it passes `maxBytes`, so an endless or
 * lying upload never gets buffered. The stream is paused, not destroyed, so the 413 still goes out.
 */
export const readBody = (req: IncomingMessage, maxBytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (e: Error) => {
      cleanup();
      reject(new IngestError('malformed_request', `request body could not be read: ${e.message}`));
    };
    const onAborted = () => onError(new Error('the client aborted the request'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
