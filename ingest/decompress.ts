import zlib from 'node:zlib';
import { IngestError } from './ingestError.ts';

export type ContentEncoding = 'identity' | 'gzip' | 'deflate';

/** The body's Content-Encoding, or a 415 for one we do not decode. */
export const contentEncodingOf = (header: string | undefined): ContentEncoding => {
  const value = (header ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  throw new IngestError('unsupported_content_encoding', `unsupported content encoding "${header}": use gzip, deflate or none`);
};

export const malformedCompression = (encoding: ContentEncoding, e: unknown): IngestError =>
  new IngestError('malformed_request', `request body is not valid ${encoding} data: ${(e as Error).message}`);

export const decompressedTooLarge = (maxBytes: number): IngestError =>
  new IngestError('payload_too_large', `decompressed request body exceeds the limit of ${maxBytes} bytes`, { Connection: 'close' });

/**
 * A streaming inflater for a compressed body, fed chunk by chunk as they arrive so that its output
 * can be counted (against the size limit and the in-flight budget) while it is produced: a small
 * zip bomb is refused after at most the limit has been inflated, never inflated in full.
 *
 * HTTP "deflate" means zlib-wrapped, but some clients send raw deflate: the first byte tells
 * (a zlib header's low nibble is 8, "deflate", which a raw deflate block's first byte rarely is
 * together with a valid header checksum).
 */
export const createInflater = (
  encoding: Exclude<ContentEncoding, 'identity'>,
  firstBytes: Buffer,
): zlib.Gunzip | zlib.Inflate | zlib.InflateRaw => {
  if (encoding === 'gzip') return zlib.createGunzip();
  const zlibWrapped = firstBytes.length >= 2 && (firstBytes[0]! & 0x0f) === 8 && ((firstBytes[0]! << 8) | firstBytes[1]!) % 31 === 0;
  return zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
};
