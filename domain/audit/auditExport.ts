import { createHmac } from 'node:crypto';
import type { Position } from '../eventstore/types.ts';
import { positionToString } from '../eventstore/types.ts';
import type { AuditKey } from './auditKey.ts';
import type { SealInput } from './sealInput.ts';
import type { Checkpoint, SealRecord } from './sealRecord.ts';

/**
 * The lines of `loupe audit export` (JSON lines), which the offline verifier
 * (bin/loupe-audit-check.mjs) reads: a header, the checkpoints, one line per event in global
 * order with its seal, a line for each seal whose event is gone, and an end line whose MAC covers
 * the count and the head, so a file cut short is caught too.
 */
export const AUDIT_EXPORT_FORMAT = 'loupe-audit-export/1';

const line = (value: object): string => `${JSON.stringify(value)}\n`;

export const headerLine = (key: AuditKey, exportedAt: Date): string =>
  line({ kind: 'header', format: AUDIT_EXPORT_FORMAT, keyId: key.id, keyed: key.keyed, exportedAt: exportedAt.toISOString() });

/** `data` is the event's data exactly as stored (a JSON text), so its hash can be recomputed. */
export const eventLine = (e: SealInput & { readonly dataText: string }, seal: SealRecord | null): string =>
  line({
    kind: 'event',
    position: positionToString(e.position),
    ordinal: seal?.ordinal.toString() ?? null,
    id: e.id,
    stream: e.stream,
    revision: e.revision,
    type: e.type,
    metadata: JSON.parse(e.metadata),
    data: e.dataText,
    ...(e.erasure === null ? {} : { erasedBy: e.erasure.by?.toString() ?? null, originalDataSha256: e.dataSha256.toString('hex') }),
    seal: seal?.seal.toString('hex') ?? null,
  });

/** A seal whose event the log no longer holds. */
export const missingLine = (seal: SealRecord): string =>
  line({
    kind: 'missing',
    position: positionToString(seal.position),
    ordinal: seal.ordinal.toString(),
    id: seal.eventId,
    seal: seal.seal.toString('hex'),
  });

export const checkpointLine = (c: Checkpoint): string =>
  line({
    kind: 'checkpoint',
    position: positionToString(c.position),
    ordinal: c.ordinal.toString(),
    seal: c.seal.toString('hex'),
    keyId: c.keyId,
    recordedAt: c.recordedAt,
  });

/**
 * HMAC(key, "loupe audit export end" ‖ 0 ‖ event lines (decimal) ‖ 0 ‖ head seal (hex) ‖ 0 ‖
 * sha256 (hex) of the header and checkpoint lines exactly as written, newlines included): every
 * byte of the file is then covered, by a seal or by this.
 */
export const endMac = (key: AuditKey, lines: number, headSeal: string, preambleSha256: string): string =>
  createHmac('sha256', key.key).update(`loupe audit export end\0${lines}\0${headSeal}\0${preambleSha256}`).digest('hex');

export const endLine = (
  key: AuditKey,
  lines: number,
  head: { readonly position: Position; readonly seal: Buffer } | null,
  preambleSha256: string,
): string => {
  const headSeal = head?.seal.toString('hex') ?? '';
  return line({
    kind: 'end',
    lines,
    head: head === null ? null : positionToString(head.position),
    headSeal,
    mac: endMac(key, lines, headSeal, preambleSha256),
  });
};
