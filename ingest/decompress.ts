import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { IngestError } from './ingestError.ts';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

export type ContentEncoding = 'identity' | 'gzip' | 'deflate';

/** The body's Content-Encoding, or a 415 for one we do not decode. */
export const contentEncodingOf = (header: string | undefined): ContentEncoding => {
  const value = (header ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  throw new IngestError('unsupported_content_encoding', `unsupported content encoding "${header}": use gzip, deflate or none`);
};

const isTooLarge = (e: unknown) => (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';

/**
 * Decompresses off the event loop and stops at `maxBytes` of output (zlib's maxOutputLength),
 * so a small zip bomb is refused with 413 without ever being inflated in full.
 */
export const decompress = async (body: Buffer, encoding: ContentEncoding, maxBytes: number): Promise<Buffer> => {
  if (encoding === 'identity') return body;
  const options = { maxOutputLength: maxBytes };
  try {
    if (encoding === 'gzip') return await gunzip(body, options);
    try {
      return await inflate(body, options);
    } catch (e) {
      // HTTP "deflate" means zlib-wrapped, but some clients send raw deflate.
      if (isTooLarge(e)) throw e;
      return await inflateRaw(body, options);
    }
  } catch (e) {
    if (isTooLarge(e)) throw new IngestError('payload_too_large', `decompressed request body exceeds the limit of ${maxBytes} bytes`);
    throw new IngestError('malformed_request', `request body is not valid ${encoding} data: ${(e as Error).message}`);
  }
};
