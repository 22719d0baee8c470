import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { readableHorizon } from './readableHorizon.ts';
import type { Position } from './types.ts';
import type { SealInputSource } from '../audit/sealInputSource.ts';
import { byteaColumn } from '../base/byteaColumn.ts';
import { canonicalMetadata } from '../audit/sealInput.ts';

const row = z.object({
  id: z.string(),
  stream: z.string(),
  revision: z.number(),
  tx: z.string(),
  seq: z.bigint(),
  type: z.string(),
  metadata: z.string(),
  data_sha256: byteaColumn,
  erased: z.boolean(),
  erased_by: z.bigint().nullable(),
  data_text: z.string().optional(),
});

type Row = z.infer<typeof row>;

const bytes = (v: unknown): Buffer<ArrayBuffer> => {
  if (!(v instanceof Uint8Array)) throw new Error('seal inputs: expected bytea');
  return Buffer.from(v.buffer as ArrayBuffer, v.byteOffset, v.byteLength);
};

/** The checks `row` makes, by hand: this runs for every event of the log. */
const rowOf = (value: unknown): Row => {
  const r = value as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.stream !== 'string' || typeof r.type !== 'string' || typeof r.metadata !== 'string') {
    return row.parse(r); // throws, naming the field
  }
  return {
    id: r.id,
    stream: r.stream,
    revision: Number(r.revision),
    tx: String(r.tx),
    seq: BigInt(r.seq as bigint),
    type: r.type,
    metadata: r.metadata,
    data_sha256: bytes(r.data_sha256),
    erased: r.erased === true,
    erased_by: r.erased_by === null ? null : BigInt(r.erased_by as bigint),
    data_text: typeof r.data_text === 'string' ? r.data_text : undefined,
  };
};

/**
 * The seal inputs of the Postgres/PGlite `events` table. The data is hashed by the database
 * (sha256 of the stored JSON text's UTF-8 bytes), so a span batch of megabytes never travels to
 * the sealer. Pages are bounded by the stored data sizes (`data_bytes`) as projection batches are.
 * An event whose content a removal rewrote is sealed with the hash of its original data, which its
 * row keeps (`data_sha256`, set by the append-only trigger), and names the removal record.
 */
export const createPostgresSealInputs = (db: CommonQueryMethods): SealInputSource => {
  const read = async (after: Position, maxEvents: number, maxBytes: number, withData: boolean) => {
    // Unparsed: zod on every row was most of verify's CPU (the fields are checked by `rowOf`).
    const raw = await db.any(sql.unsafe`
      WITH page AS (
        SELECT event_id, stream, revision, transaction_id, global_position, type, metadata, data, data_bytes, erased_by, data_sha256
        FROM events
        WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
          AND transaction_id < ${readableHorizon}
        ORDER BY transaction_id, global_position
        LIMIT ${maxEvents}
      ), sized AS (
        SELECT *, sum(coalesce(data_bytes, 0)) OVER (ORDER BY transaction_id, global_position ROWS UNBOUNDED PRECEDING)
          - coalesce(data_bytes, 0) AS bytes_before
        FROM page
      )
      SELECT event_id::text AS id, stream, revision, transaction_id::text AS tx, global_position AS seq, type,
        metadata::text AS metadata,
        -- A removal keeps the hash of what the event held (set by the append-only trigger): the chain covers that.
        CASE WHEN data_sha256 IS NULL THEN sha256(convert_to(data::text, 'UTF8')) ELSE decode(data_sha256, 'hex') END AS data_sha256,
        data_sha256 IS NOT NULL AS erased, erased_by
        ${withData ? sql.fragment`, data::text AS data_text` : sql.fragment``}
      FROM sized
      WHERE bytes_before < ${maxBytes} OR bytes_before = 0
      ORDER BY transaction_id, global_position`);
    return raw.map(rowOf).map((r) => ({
      id: r.id,
      position: { tx: BigInt(r.tx), seq: r.seq },
      stream: r.stream,
      revision: r.revision,
      type: r.type,
      metadata: canonicalMetadata(r.metadata),
      dataSha256: r.data_sha256,
      erasure: r.erased ? { by: r.erased_by } : null,
      dataText: r.data_text ?? '',
    }));
  };
  return {
    read: (after, maxEvents, maxBytes) => read(after, maxEvents, maxBytes, false),
    readWithData: (after, maxEvents, maxBytes) => read(after, maxEvents, maxBytes, true),
  };
};
