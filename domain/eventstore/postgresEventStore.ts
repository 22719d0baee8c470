import { randomUUID } from 'node:crypto';
import {
  sql,
  UniqueIntegrityConstraintViolationError,
  type CommonQueryMethods,
  type DatabasePool,
  type DatabaseTransactionConnection,
} from 'slonik';
import { z } from 'zod';
import { createMonotonicHorizon } from './readableHorizon.ts';
import type {
  AppendResult,
  ContentRemoval,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadFilter,
  RemovalResult,
  StoredEvent,
} from './types.ts';
import { CONTENT_REMOVED, positionToString, REMOVALS_STREAM, START, WrongExpectedRevisionError } from './types.ts';

const eventRow = z.object({
  event_id: z.string(),
  stream: z.string(),
  revision: z.number(),
  tx: z.string(),
  global_position: z.bigint(),
  type: z.string(),
  schema_version: z.number(),
  data: z.unknown(),
  metadata: z.unknown(),
  erased_by_tx: z.string().nullable(),
  erased_by: z.bigint().nullable(),
  data_sha256: z.string().nullable(),
});

// The record that erased an event was appended in the removal's own transaction: its transaction
// id is the event's erasure position's `tx` (looked up only for erased events).
const columns = sql.fragment`event_id::text, stream, revision, transaction_id::text AS tx, global_position, type, schema_version, data, metadata,
  erased_by, data_sha256,
  CASE WHEN erased_by IS NULL THEN NULL ELSE (SELECT r.transaction_id::text FROM events r WHERE r.global_position = events.erased_by) END AS erased_by_tx`;

const toStored = (row: z.infer<typeof eventRow>): StoredEvent => ({
  id: row.event_id,
  stream: row.stream,
  revision: row.revision,
  position: { tx: BigInt(row.tx), seq: row.global_position },
  type: row.type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: row.metadata as EventMetadata,
  ...(row.erased_by !== null && row.data_sha256 !== null
    ? { erased: { by: { tx: BigInt(row.erased_by_tx ?? '0'), seq: row.erased_by }, dataSha256: row.data_sha256 } }
    : {}),
});

const removalRevisionRow = z.object({ tx: z.string(), global_position: z.bigint() });

const currentRevision = async (db: CommonQueryMethods, stream: string): Promise<number | null> =>
  db.oneFirst(sql.type(z.object({ r: z.number().nullable() }))`SELECT max(revision) AS r FROM events WHERE stream = ${stream}`);

const backlogRow = z.object({ n: z.number(), oldest: z.number().nullable() });

/**
 * The default event store: an append-only `events` table on Postgres or embedded PGlite.
 * Given a transaction instead of a pool, it reads and appends inside that transaction (appends
 * become savepoints), which is how a projection rebuild reads the log while holding its locks.
 */
export const createPostgresEventStore = (pool: DatabasePool | DatabaseTransactionConnection): EventStore => {
  const nextHorizon = createMonotonicHorizon(pool);
  const appendOnce = async (stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> =>
    pool.transaction(async (tx) => {
      const actual = await currentRevision(tx, stream);
      if (expected === 'no_stream' ? actual !== null : expected !== 'any' && expected !== actual) {
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      const first = actual === null ? 0 : actual + 1;
      const rows = events.map((e, i) => {
        const data = JSON.stringify(e.data);
        return sql.fragment`(${e.id ?? randomUUID()}, ${stream}, ${first + i}, ${e.type}, ${e.schemaVersion ?? 1},
          ${data}::json, ${Buffer.byteLength(data)}, ${JSON.stringify(e.metadata)}::jsonb)`;
      });
      const last = await tx.one(
        sql.type(z.object({ tx: z.string(), global_position: z.bigint(), revision: z.number() }))`
          WITH inserted AS (
            INSERT INTO events (event_id, stream, revision, type, schema_version, data, data_bytes, metadata)
            VALUES ${sql.join(rows, sql.fragment`, `)}
            RETURNING transaction_id, global_position, revision
          )
          SELECT transaction_id::text AS tx, global_position, revision FROM inserted
          ORDER BY global_position DESC LIMIT 1`,
      );
      return { revision: last.revision, position: { tx: BigInt(last.tx), seq: last.global_position } };
    });

  /**
   * How many of the next `limit` events fit in `maxBytes` (at least one). The sizes come first from
   * a cheap query: the size stored with each event (`data_bytes`); an event appended before that
   * column existed is measured with octet_length, which decompresses it, so only the rows within
   * the limit are measured (the subquery limits first). Both reads see the same first events: they
   * only read below the oldest running transaction, where the order no longer changes.
   */
  const countWithin = async (
    after: Position,
    limit: number,
    maxBytes: number,
    types: ReturnType<typeof sql.fragment>,
    horizon: string,
  ): Promise<number> => {
    const sizes = await pool.anyFirst(sql.type(z.object({ bytes: z.number() }))`
      SELECT coalesce(data_bytes, octet_length(data::text))::int AS bytes FROM (
        SELECT data_bytes, data, transaction_id, global_position FROM events
        WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
          AND transaction_id < ${horizon}::xid8 ${types}
        ORDER BY transaction_id, global_position
        LIMIT ${limit}
      ) e ORDER BY transaction_id, global_position`);
    let count = 0;
    let total = 0;
    for (const bytes of sizes) {
      if (count > 0 && total + bytes > maxBytes) break;
      total += bytes;
      count++;
    }
    return count;
  };

  const removeOnce = async (removal: ContentRemoval): Promise<RemovalResult | null> =>
    pool.transaction(async (tx) => {
      if (removal.eventIds.length === 0) return null;
      // Locks the rows: two removals of one event run one after the other, each on the other's result.
      const rows = await tx.any(sql.type(eventRow)`
        SELECT ${columns} FROM events WHERE event_id = ANY(${sql.array([...new Set(removal.eventIds)], 'uuid')})
        ORDER BY transaction_id, global_position FOR UPDATE`);
      const changes: { event: StoredEvent; data: string }[] = [];
      for (const row of rows) {
        const event = toStored(row);
        const kept = removal.rewrite(event);
        if (kept === undefined) continue;
        changes.push({ event, data: JSON.stringify(kept === null ? {} : kept) });
      }
      if (changes.length === 0) return null;
      await tx.query(sql.unsafe`SELECT set_config('loupe.removal', 'on', true)`);
      const erased = changes.map(({ event }) => ({ id: event.id, stream: event.stream, position: event.position }));
      const recordData = JSON.stringify({
        ...(removal.record.data as object),
        erased: erased.map((e) => ({ id: e.id, stream: e.stream, position: positionToString(e.position) })),
      });
      const revision = (await currentRevision(tx, REMOVALS_STREAM)) ?? -1;
      const record = await tx.one(sql.type(removalRevisionRow)`
        INSERT INTO events (event_id, stream, revision, type, schema_version, data, data_bytes, metadata)
        VALUES (${randomUUID()}, ${REMOVALS_STREAM}, ${revision + 1}, ${CONTENT_REMOVED}, ${removal.record.schemaVersion ?? 1},
          ${recordData}::json, ${Buffer.byteLength(recordData)}, ${JSON.stringify(removal.record.metadata)}::jsonb)
        RETURNING transaction_id::text AS tx, global_position`);
      await tx.query(sql.unsafe`
        UPDATE events e SET data = x.data::json, data_bytes = x.bytes, erased_by = ${record.global_position}
        FROM unnest(${sql.array(
          changes.map((c) => c.event.id),
          'uuid',
        )}::uuid[], ${sql.array(
          changes.map((c) => c.data),
          'text',
        )}::text[], ${sql.array(
          changes.map((c) => Buffer.byteLength(c.data)),
          'int4',
        )}::int[]) AS x(id, data, bytes)
        WHERE e.event_id = x.id`);
      await tx.query(sql.unsafe`SELECT set_config('loupe.removal', 'off', true)`);
      return { position: { tx: BigInt(record.tx), seq: record.global_position }, erased };
    });

  return {
    async removeContent(removal) {
      for (;;) {
        try {
          return await removeOnce(removal);
        } catch (error) {
          // Another removal took the record's revision meanwhile: do it again on its result.
          if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
        }
      }
    },

    async reclaimSpace() {
      // Old row versions (and their TOAST chunks) still hold the removed data until vacuumed;
      // PGlite never autovacuums. A transaction cannot run VACUUM: on a transaction connection
      // (a rebuild) this is left to the caller.
      if (!('connect' in pool)) return;
      await pool.query(sql.unsafe`VACUUM events`);
    },

    async appendToStream(stream, events, expected) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      for (;;) {
        try {
          return await appendOnce(stream, events, expected);
        } catch (error) {
          if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
          // Another writer took the same revision between our read and our insert.
          if (expected !== 'any') throw new WrongExpectedRevisionError(stream, expected, await currentRevision(pool, stream));
        }
      }
    },

    async readStream(stream) {
      const rows = await pool.any(sql.type(eventRow)`SELECT ${columns} FROM events WHERE stream = ${stream} ORDER BY revision`);
      return rows.map(toStored);
    },

    async readAll(after: Position, limit: number, filter?: ReadFilter) {
      const types = filter?.types ? sql.fragment`AND type = ANY(${sql.array([...filter.types], 'text')})` : sql.fragment``;
      const maxBytes = filter?.maxBytes ?? Number.POSITIVE_INFINITY;
      const horizon = await nextHorizon();
      const count = Number.isFinite(maxBytes) ? await countWithin(after, limit, maxBytes, types, horizon) : limit;
      if (count === 0) return [];
      // Only rows of transactions older than every transaction still running: anything a later
      // read could find below this horizon has already committed, so the order never changes.
      const rows = await pool.any(sql.type(eventRow)`
        SELECT ${columns} FROM events
        WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
          AND transaction_id < ${horizon}::xid8 ${types}
        ORDER BY transaction_id, global_position
        LIMIT ${count}`);
      return rows.map(toStored);
    },

    async backlog(after, { cap, through }) {
      const from = sql.fragment`(transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)`;
      const upTo = through
        ? sql.fragment`AND (transaction_id, global_position) <= (${through.tx.toString()}::xid8, ${through.seq.toString()}::bigint)`
        : sql.fragment``;
      const row = await pool.one(sql.type(backlogRow)`
        SELECT
          (SELECT count(*)::int FROM (SELECT 1 FROM events WHERE ${from} ${upTo} LIMIT ${cap}) pending) AS n,
          (SELECT recorded_at FROM events WHERE ${from} ${upTo} ORDER BY transaction_id, global_position LIMIT 1) AS oldest`);
      return { events: row.n, oldestRecordedAt: row.n === 0 || row.oldest === null ? null : new Date(row.oldest) };
    },

    async headPosition() {
      const row = await pool.maybeOne(sql.type(z.object({ tx: z.string(), global_position: z.bigint() }))`
        SELECT transaction_id::text AS tx, global_position FROM events
        ORDER BY transaction_id DESC, global_position DESC LIMIT 1`);
      return row ? { tx: BigInt(row.tx), seq: row.global_position } : START;
    },
  };
};
