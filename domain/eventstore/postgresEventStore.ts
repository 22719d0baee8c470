import { randomUUID } from 'node:crypto';
import {
  sql,
  UniqueIntegrityConstraintViolationError,
  type CommonQueryMethods,
  type DatabasePool,
  type DatabaseTransactionConnection,
} from 'slonik';
import { z } from 'zod';
import type { AppendResult, EventMetadata, EventStore, ExpectedRevision, NewEvent, Position, ReadFilter, StoredEvent } from './types.ts';
import { START, WrongExpectedRevisionError } from './types.ts';

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
});

const columns = sql.fragment`event_id::text, stream, revision, transaction_id::text AS tx, global_position, type, schema_version, data, metadata`;

const toStored = (row: z.infer<typeof eventRow>): StoredEvent => ({
  id: row.event_id,
  stream: row.stream,
  revision: row.revision,
  position: { tx: BigInt(row.tx), seq: row.global_position },
  type: row.type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: row.metadata as EventMetadata,
});

const currentRevision = async (db: CommonQueryMethods, stream: string): Promise<number | null> =>
  db.oneFirst(sql.type(z.object({ r: z.number().nullable() }))`SELECT max(revision) AS r FROM events WHERE stream = ${stream}`);

const backlogRow = z.object({ n: z.number(), oldest: z.number().nullable() });

/**
 * The default event store: an append-only `events` table on Postgres or embedded PGlite.
 * Given a transaction instead of a pool, it reads and appends inside that transaction (appends
 * become savepoints), which is how a projection rebuild reads the log while holding its locks.
 */
export const createPostgresEventStore = (pool: DatabasePool | DatabaseTransactionConnection): EventStore => {
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
  const countWithin = async (after: Position, limit: number, maxBytes: number, types: ReturnType<typeof sql.fragment>): Promise<number> => {
    const sizes = await pool.anyFirst(sql.type(z.object({ bytes: z.number() }))`
      SELECT coalesce(data_bytes, octet_length(data::text))::int AS bytes FROM (
        SELECT data_bytes, data, transaction_id, global_position FROM events
        WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
          AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${types}
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

  return {
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
      const count = Number.isFinite(maxBytes) ? await countWithin(after, limit, maxBytes, types) : limit;
      if (count === 0) return [];
      // Only rows of transactions older than every transaction still running: anything a later
      // read could find below this horizon has already committed, so the order never changes.
      const rows = await pool.any(sql.type(eventRow)`
        SELECT ${columns} FROM events
        WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
          AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${types}
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
