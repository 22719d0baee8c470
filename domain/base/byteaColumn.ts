import { z } from 'zod';

/** A bytea column: node-postgres gives a Buffer, PGlite a Uint8Array; both become a Buffer (no copy). */
export const byteaColumn = z.instanceof(Uint8Array).transform((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
