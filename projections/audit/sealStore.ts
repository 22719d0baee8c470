import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { byteaColumn } from '../../domain/base/byteaColumn.ts';
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

const sealHeads = z.object({
  count: z.number(),
  positions: byteaColumn.nullable(),
  ids: z.string().nullable(),
  seals: byteaColumn.nullable(),
});

/** `event_id::text`: always 36 ASCII characters. */
const ID = 36;

/**
 * Seals strictly after `after` without their part hashes: what verify walks (`sealOfEvent` has the
 * rest). A page in one row of columns holding the page's values end to end, as verify reads the log
 * (domain/eventstore/postgresChainEvents.ts says why): tx ‖ seq ‖ ordinal (8 bytes each), the event
 * ids, the seals. A seal that is not 32 bytes (edited) comes as 32 zero bytes, which no HMAC gives:
 * it fails as it would whole.
 */
export const readSealHeads = async (db: CommonQueryMethods, after: Position, limit: number): Promise<SealHead[]> => {
  const { count, positions, ids, seals } = await db.one(sql.type(sealHeads)`
    SELECT count(*)::int AS count,
      string_agg(int8send(tx) || int8send(seq) || int8send(ordinal), ''::bytea) AS positions,
      string_agg(event_id::text, '') AS ids,
      string_agg(CASE WHEN octet_length(seal) = 32 THEN seal ELSE decode(repeat('00', 32), 'hex') END, ''::bytea) AS seals
    FROM (
      SELECT tx, seq, ordinal, event_id, seal FROM audit_seals
      WHERE (tx, seq) > (${after.tx.toString()}::bigint, ${after.seq.toString()}::bigint)
      ORDER BY tx, seq LIMIT ${limit}
    ) page`);
  if (count === 0) return [];
  if (positions?.length !== count * 24 || ids?.length !== count * ID || seals?.length !== count * 32) {
    throw new Error('audit verify: the page of seals read back is inconsistent; nothing was judged');
  }
  const heads: SealHead[] = [];
  let previous = after;
  for (let i = 0; i < count; i++) {
    const position = { tx: positions.readBigInt64BE(i * 24), seq: positions.readBigInt64BE(i * 24 + 8) };
    // One aggregate per column over the sorted page (see domain/eventstore/postgresChainEvents.ts): checked, not assumed.
    if (position.tx < previous.tx || (position.tx === previous.tx && position.seq <= previous.seq)) {
      throw new Error('audit verify: the page of seals read back is out of order; nothing was judged');
    }
    previous = position;
    heads.push({
      position,
      ordinal: positions.readBigInt64BE(i * 24 + 16),
      eventId: ids.slice(i * ID, (i + 1) * ID),
      seal: seals.subarray(i * 32, (i + 1) * 32),
    });
  }
  return heads;
};

/** Where an event was sealed (to tell a reordering from a replacement); a scan, only run on a finding. */
export const sealOfEvent = async (db: CommonQueryMethods, eventId: string): Promise<SealRecord | null> => {
  const r = await db.maybeOne(sql.type(sealRow)`SELECT ${sealColumns} FROM audit_seals WHERE event_id = ${eventId}::uuid LIMIT 1`);
  return r ? toSeal(r) : null;
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
