import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { byteaColumn } from '../../domain/audit/byteaColumn.ts';
import type { Checkpoint, SealHead, SealRecord } from '../../domain/audit/sealRecord.ts';
import type { Position } from '../../domain/eventstore/types.ts';

const sealRow = z.object({
  tx: z.bigint(),
  seq: z.bigint(),
  ordinal: z.bigint(),
  event_id: z.string(),
  header_sha256: byteaColumn,
  metadata_sha256: byteaColumn,
  data_sha256: byteaColumn,
  seal: byteaColumn,
});

const toSeal = (r: z.infer<typeof sealRow>): SealRecord => ({
  position: { tx: r.tx, seq: r.seq },
  ordinal: r.ordinal,
  eventId: r.event_id,
  header: r.header_sha256,
  metadata: r.metadata_sha256,
  data: r.data_sha256,
  seal: r.seal,
});

const buffer = (v: unknown): Buffer => {
  if (!(v instanceof Uint8Array)) throw new Error('audit_seals: expected bytea');
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
};

const fastSeal = (value: unknown): SealRecord => {
  const r = value as Record<string, unknown>;
  if (typeof r.tx !== 'bigint' || typeof r.seq !== 'bigint' || typeof r.ordinal !== 'bigint' || typeof r.event_id !== 'string') {
    return toSeal(sealRow.parse(r));
  }
  return {
    position: { tx: r.tx, seq: r.seq },
    ordinal: r.ordinal,
    eventId: r.event_id,
    header: buffer(r.header_sha256),
    metadata: buffer(r.metadata_sha256),
    data: buffer(r.data_sha256),
    seal: buffer(r.seal),
  };
};

const checkpointRow = z.object({
  tx: z.bigint(),
  seq: z.bigint(),
  ordinal: z.bigint(),
  seal: byteaColumn,
  key_id: z.string(),
  recorded_at: z.string(),
});

const toCheckpoint = (r: z.infer<typeof checkpointRow>): Checkpoint => ({
  position: { tx: r.tx, seq: r.seq },
  ordinal: r.ordinal,
  seal: r.seal,
  keyId: r.key_id,
  recordedAt: r.recorded_at,
});

const sealColumns = sql.fragment`tx, seq, ordinal, event_id::text, header_sha256, metadata_sha256, data_sha256, seal`;

/** The newest seal, or null before the first. */
export const lastSeal = async (db: CommonQueryMethods): Promise<SealRecord | null> => {
  const r = await db.maybeOne(sql.type(sealRow)`SELECT ${sealColumns} FROM audit_seals ORDER BY tx DESC, seq DESC LIMIT 1`);
  return r ? toSeal(r) : null;
};

/** Seals strictly after `after` in global order. */
export const readSeals = async (db: CommonQueryMethods, after: Position, limit: number): Promise<SealRecord[]> =>
  // Unparsed (zod on every row was a large share of verify's CPU); `fastSeal` checks the fields.
  (
    await db.any(sql.unsafe`
      SELECT ${sealColumns} FROM audit_seals
      WHERE (tx, seq) > (${after.tx.toString()}::bigint, ${after.seq.toString()}::bigint)
      ORDER BY tx, seq LIMIT ${limit}`)
  ).map(fastSeal);

const sealHeads = z.object({ packed: byteaColumn.nullable() });

/**
 * Seals strictly after `after` without their part hashes: what verify walks (`sealOfEvent` has the
 * rest). A page in one row, as verify reads the log (projections/audit/postgresChainEvents.ts), per
 * seal: tx (8) ‖ seq (8) ‖ ordinal (8) ‖ event id text (36) ‖ u32 len ‖ seal. The seal is
 * length-prefixed: an edited one of another length must fail, not shift the rest of the page.
 */
export const readSealHeads = async (db: CommonQueryMethods, after: Position, limit: number): Promise<SealHead[]> => {
  const { packed } = await db.one(sql.type(sealHeads)`
    SELECT string_agg(int8send(tx) || int8send(seq) || int8send(ordinal) || convert_to(event_id::text, 'UTF8')
      || int4send(octet_length(seal)) || seal, ''::bytea ORDER BY tx, seq) AS packed
    FROM (
      SELECT tx, seq, ordinal, event_id, seal FROM audit_seals
      WHERE (tx, seq) > (${after.tx.toString()}::bigint, ${after.seq.toString()}::bigint)
      ORDER BY tx, seq LIMIT ${limit}
    ) page`);
  const heads: SealHead[] = [];
  if (packed === null) return heads;
  for (let at = 0; at < packed.length; ) {
    const position = { tx: packed.readBigInt64BE(at), seq: packed.readBigInt64BE(at + 8) };
    const ordinal = packed.readBigInt64BE(at + 16);
    const eventId = packed.toString('latin1', at + 24, at + 60);
    const length = packed.readUInt32BE(at + 60);
    heads.push({ position, ordinal, eventId, seal: packed.subarray(at + 64, at + 64 + length) });
    at += 64 + length;
  }
  return heads;
};

/** Where an event was sealed (to tell a reordering from a replacement); a scan, only run on a finding. */
export const sealOfEvent = async (db: CommonQueryMethods, eventId: string): Promise<SealRecord | null> => {
  const r = await db.maybeOne(sql.type(sealRow)`SELECT ${sealColumns} FROM audit_seals WHERE event_id = ${eventId}::uuid LIMIT 1`);
  return r ? toSeal(r) : null;
};

const eventPosition = z.object({ tx: z.string(), seq: z.bigint() });

/** Where the log holds an event now (by its unique id), or null. */
export const positionOfEvent = async (db: CommonQueryMethods, eventId: string): Promise<Position | null> => {
  const r = await db.maybeOne(sql.type(eventPosition)`
    SELECT transaction_id::text AS tx, global_position AS seq FROM events WHERE event_id = ${eventId}::uuid`);
  return r ? { tx: BigInt(r.tx), seq: r.seq } : null;
};

const hex = (bs: readonly Buffer[]) => bs.map((b) => b.toString('hex'));

export const insertSeals = async (db: CommonQueryMethods, rows: readonly SealRecord[]): Promise<void> => {
  if (rows.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO audit_seals (tx, seq, ordinal, event_id, header_sha256, metadata_sha256, data_sha256, seal)
    SELECT tx, seq, ordinal, event_id::uuid, decode(h, 'hex'), decode(m, 'hex'), decode(d, 'hex'), decode(s, 'hex')
    FROM unnest(
      ${sql.array(
        rows.map((r) => r.position.tx.toString()),
        'int8',
      )}, ${sql.array(
        rows.map((r) => r.position.seq.toString()),
        'int8',
      )}, ${sql.array(
        rows.map((r) => r.ordinal.toString()),
        'int8',
      )},
      ${sql.array(
        rows.map((r) => r.eventId),
        'text',
      )}, ${sql.array(hex(rows.map((r) => r.header)), 'text')}, ${sql.array(hex(rows.map((r) => r.metadata)), 'text')},
      ${sql.array(hex(rows.map((r) => r.data)), 'text')}, ${sql.array(hex(rows.map((r) => r.seal)), 'text')}
    ) AS t(tx, seq, ordinal, event_id, h, m, d, s)`);
};

export const latestCheckpoint = async (db: CommonQueryMethods): Promise<Checkpoint | null> => {
  const r = await db.maybeOne(sql.type(checkpointRow)`
    SELECT tx, seq, ordinal, seal, key_id, to_json(recorded_at) #>> '{}' AS recorded_at FROM audit_checkpoints ORDER BY id DESC LIMIT 1`);
  return r ? toCheckpoint(r) : null;
};

/** Every checkpoint, oldest first (one a minute at most while events arrive: small). */
export const readCheckpoints = async (db: CommonQueryMethods): Promise<Checkpoint[]> =>
  (
    await db.any(sql.type(checkpointRow)`
      SELECT tx, seq, ordinal, seal, key_id, to_json(recorded_at) #>> '{}' AS recorded_at FROM audit_checkpoints ORDER BY id`)
  ).map(toCheckpoint);

export const insertCheckpoint = async (db: CommonQueryMethods, head: SealRecord, keyId: string): Promise<void> => {
  await db.query(sql.unsafe`
    INSERT INTO audit_checkpoints (tx, seq, ordinal, seal, key_id)
    VALUES (${head.position.tx.toString()}, ${head.position.seq.toString()}, ${head.ordinal.toString()},
      decode(${head.seal.toString('hex')}, 'hex'), ${keyId})`);
};
