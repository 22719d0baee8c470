import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { byteaColumn } from '../base/byteaColumn.ts';
import type { ChainEvent } from '../audit/verifyChain.ts';
import { readableHorizon } from './readableHorizon.ts';
import type { Position } from './types.ts';

const page = z.object({
  count: z.number(),
  positions: byteaColumn.nullable(),
  ids: z.string().nullable(),
  headers: byteaColumn.nullable(),
  data: byteaColumn.nullable(),
  metadata: z.string().nullable(),
  /** [seq, the data hash the row keeps (hex), the removal record's seq or null] per erased event. */
  erased: z.array(z.tuple([z.string(), z.string(), z.string().nullable()])).nullable(),
});

/** `event_id::text`: always 36 ASCII characters. */
const ID = 36;

/**
 * Verify's read of the Postgres/PGlite log: the events after `after` in global order, as the
 * hashes each seal covers, a page in ONE row of columns that each hold the page's values
 * end to end. Row by row, each event was an object built by pg, then by slonik, then here, which
 * was most of verify's time; this way node reads a few buffers. The database hashes the header
 * (the bytes `headerHash` in domain/audit/sealChain.ts hashes: change both together) and the data
 * (the stored JSON text); the metadata comes as jsonb's text, which the walk canonicalises
 * (JSON.parse/stringify, which SQL cannot reproduce) and hashes. An erased event's row keeps the
 * hash of the data it held, which the chain covers: those few come apart, with the removal record
 * they name.
 *
 * One aggregate per column, without ORDER BY of their own: that would be a sort each, which cost
 * more than the rest of the query. They all take the rows in the same order (one Agg node), that
 * of the sorted page they read, and `unpack` checks that the positions come back strictly
 * ascending after `after`: if a plan ever gave them otherwise, verify stops with an error instead
 * of judging.
 *
 * Pages are cut by the data's stored size as the sealer's are, on the positions alone: the event
 * rows are joined in (by ctid, within the statement's snapshot) only for the page that is kept, so
 * no event's data goes through the running sum. The horizon is applied after the LIMIT, not in the
 * index condition: with both, a table not analyzed yet (a fresh restore, the bench) was estimated
 * at a few thousand rows and planned as a bitmap scan of everything after `after` plus a sort, for
 * every page (quadratic in the log); with the range alone, the index scan stops at the LIMIT.
 */
export const readChainEvents = async (
  db: CommonQueryMethods,
  after: Position,
  maxEvents: number,
  maxBytes: number,
): Promise<ChainEvent[]> => {
  const columns = await db.one(sql.type(page)`
    WITH page AS (
      SELECT ctid AS row, transaction_id, global_position, data_bytes
      FROM events
      WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
      ORDER BY transaction_id, global_position
      LIMIT ${maxEvents}
    ), sized AS (
      SELECT row, transaction_id, global_position,
        sum(coalesce(data_bytes, 0)) OVER (ORDER BY transaction_id, global_position ROWS UNBOUNDED PRECEDING)
          - coalesce(data_bytes, 0) AS bytes_before
      FROM page
      -- Below the horizon readAll uses: the page's events from the first at or past it on are
      -- dropped (a tail, in this order), not skipped, so the page is a prefix of the log there.
      WHERE transaction_id < ${readableHorizon}
    ), kept AS (
      -- Hashed before the sort, which then carries 32 bytes per event, not its data (up to 64 MB).
      SELECT e.transaction_id, e.global_position, e.event_id::text AS id,
        sha256(int4send(${ID}) || convert_to(e.event_id::text, 'UTF8')
          || int4send(octet_length(convert_to(e.stream, 'UTF8'))) || convert_to(e.stream, 'UTF8') || int4send(e.revision)
          || int4send(octet_length(convert_to(e.type, 'UTF8'))) || convert_to(e.type, 'UTF8')) AS header,
        -- 32 zero bytes for an erased event, whose hash comes with "erased".
        CASE WHEN e.data_sha256 IS NULL THEN sha256(convert_to(e.data::text, 'UTF8')) ELSE decode(repeat('00', 32), 'hex') END AS data,
        e.metadata::text AS metadata, e.data_sha256, e.erased_by
      FROM sized s JOIN events e ON e.ctid = s.row
      WHERE s.bytes_before < ${maxBytes} OR s.bytes_before = 0
      -- The join may come out in any order (a hash join on a small table does): one sort here.
      ORDER BY e.transaction_id, e.global_position
    )
    SELECT
      count(*)::int AS count,
      string_agg(xid8send(transaction_id) || int8send(global_position), ''::bytea) AS positions,
      string_agg(id, '') AS ids,
      string_agg(header, ''::bytea) AS headers,
      string_agg(data, ''::bytea) AS data,
      -- jsonb's text never holds a line break (it escapes them in strings): one line per event.
      string_agg(metadata, E'\n') AS metadata,
      json_agg(json_build_array(global_position::text, data_sha256, erased_by::text)) FILTER (WHERE data_sha256 IS NOT NULL) AS erased
    FROM kept`);
  return columns.count === 0 ? [] : unpack(after, columns);
};

const broken = (what: string) => new Error(`audit verify: the page of the log read back is inconsistent (${what}); nothing was judged`);

const unpack = (after: Position, c: z.infer<typeof page>): ChainEvent[] => {
  const { count, positions, ids, headers, data } = c;
  const metadata = c.metadata?.split('\n') ?? [];
  if (positions?.length !== count * 16 || ids?.length !== count * ID || headers?.length !== count * 32 || data?.length !== count * 32) {
    throw broken('column lengths');
  }
  if (metadata.length !== count) throw broken('metadata lines');
  const erased = new Map((c.erased ?? []).map(([seq, hash, by]) => [BigInt(seq), { hash: Buffer.from(hash, 'hex'), by }]));
  const events: ChainEvent[] = [];
  let previous = after;
  for (let i = 0; i < count; i++) {
    const position = { tx: positions.readBigUInt64BE(i * 16), seq: positions.readBigInt64BE(i * 16 + 8) };
    if (position.tx < previous.tx || (position.tx === previous.tx && position.seq <= previous.seq)) throw broken('order');
    previous = position;
    const removal = erased.size === 0 ? undefined : erased.get(position.seq);
    events.push({
      id: ids.slice(i * ID, (i + 1) * ID),
      position,
      header: headers.subarray(i * 32, (i + 1) * 32),
      metadata: metadata[i]!,
      data: removal?.hash ?? data.subarray(i * 32, (i + 1) * 32),
      erasure: removal === undefined ? null : { by: removal.by === null ? null : BigInt(removal.by) },
    });
  }
  return events;
};

/** An event's type and stream where the log holds it now, for what a finding says. */
export const typeAndStream = async (db: CommonQueryMethods, at: Position): Promise<{ type: string; stream: string } | null> =>
  db.maybeOne(sql.type(z.object({ type: z.string(), stream: z.string() }))`
    SELECT type, stream FROM events WHERE transaction_id = ${at.tx.toString()}::xid8 AND global_position = ${at.seq.toString()}::bigint`);
