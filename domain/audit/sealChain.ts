import { createHash, createHmac } from 'node:crypto';
import type { Position } from '../eventstore/types.ts';
import type { SealInput } from './sealInput.ts';

/** The seal before the first event. */
export const GENESIS_SEAL: Buffer = Buffer.alloc(32);

const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** Length-prefixed, so that no two different headers feed the same bytes to the hash. */
const field = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(bytes.length), bytes]);
};

/** The three hashes a seal covers besides the position; stored beside each seal so verify can say what changed. */
export type SealParts = { readonly header: Buffer; readonly metadata: Buffer; readonly data: Buffer };

export const sealParts = (e: SealInput): SealParts => ({
  header: createHash('sha256').update(field(e.id)).update(field(e.stream)).update(u32(e.revision)).update(field(e.type)).digest(),
  metadata: createHash('sha256').update(e.metadata, 'utf8').digest(),
  data: e.dataSha256,
});

/**
 * seal_n = HMAC-SHA256(key, seal_{n-1} ‖ tx ‖ seq ‖ sha256(id ‖ stream ‖ revision ‖ type) ‖ sha256(metadata) ‖ sha256(data)),
 * integers big-endian (tx, seq 8 bytes; revision and string lengths 4). The offline verifier
 * (ops/audit/verifyAuditExport.mjs) computes the same bytes: change both together.
 */
export const nextSeal = (key: Buffer, previous: Buffer, position: Position, parts: SealParts): Buffer =>
  createHmac('sha256', key)
    .update(previous)
    .update(u64(position.tx))
    .update(u64(position.seq))
    .update(parts.header)
    .update(parts.metadata)
    .update(parts.data)
    .digest();
