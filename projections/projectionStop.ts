import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../domain/eventstore/types.ts';
import { positionToString } from '../domain/eventstore/types.ts';

/** A read model that met an event it could not apply: it waits there, the others carry on. */
export type ProjectionStop = {
  readonly projection: string;
  readonly event: { readonly id: string; readonly stream: string; readonly type: string; readonly position: string };
  /** The error as the database (or the projector) gave it, e.g. `invalid byte sequence ... (SQLSTATE 22021)`. */
  readonly error: string;
  readonly since: string;
};

type ErrorLike = { message?: unknown; code?: unknown; cause?: unknown };

/** The innermost cause that carries a SQLSTATE: slonik wraps driver errors in generic messages. */
const rootCause = (error: unknown): ErrorLike => {
  let current = error as ErrorLike;
  for (let depth = 0; depth < 5 && current?.cause && typeof current.cause === 'object'; depth++) {
    const cause = current.cause as ErrorLike;
    if (typeof cause.message !== 'string') break;
    current = cause;
  }
  return current ?? {};
};

/** One line, bounded and storable (no NUL, no lone surrogate), saying why. */
export const describeError = (error: unknown): string => {
  const cause = rootCause(error);
  const message = typeof cause.message === 'string' ? cause.message : String(error);
  const code = typeof cause.code === 'string' && /^[0-9A-Z]{5}$/.test(cause.code) ? ` (SQLSTATE ${cause.code})` : '';
  const text = `${message}${code}`
    .replace(/\u0000/g, '\\u0000')
    .replace(/\s+/g, ' ')
    // Lone surrogates cannot be stored as UTF-8.
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
};

const CONNECTION_CODES = /^(08|57P0|53300)/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);
const CONNECTION_CLASSES = new Set(['ConnectionError', 'BackendTerminatedError', 'BackendTerminatedUnexpectedlyError']);

/**
 * Errors that say "the database is not there" rather than "this event does not fit": the runner
 * retries those as a whole instead of stopping a read model at an innocent event.
 */
export const isConnectionProblem = (error: unknown): boolean => {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    if (CONNECTION_CLASSES.has((e as Error).constructor?.name ?? '')) return true;
    const code = typeof e.code === 'string' ? e.code : '';
    if (CONNECTION_CODES.test(code) || SOCKET_CODES.has(code)) return true;
    if (
      typeof e.message === 'string' &&
      /Connection terminated|connection is closed|Client has encountered a connection error/i.test(e.message)
    )
      return true;
  }
  return false;
};

/**
 * A deadlock or serialization failure: two partitions of one read model (or a partition and a
 * reactor) met on shared rows and the database picked this transaction to give way. Nothing is
 * wrong with the event: the runner tries the batch again as a whole.
 */
export const isTransientConflict = (error: unknown): boolean => {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code === '40P01' || code === '40001') return true;
  }
  return false;
};

export const stopAt = (projection: string, event: StoredEvent, error: unknown, now = new Date()): ProjectionStop => ({
  projection,
  event: { id: event.id, stream: event.stream, type: event.type, position: positionToString(event.position) },
  error: describeError(error),
  since: now.toISOString(),
});

/** `tracing stopped at event 123:45 (SpansIngested in stream project-1): <why>` */
export const describeStop = (stop: ProjectionStop): string =>
  `${stop.projection} stopped at event ${stop.event.position} (${stop.event.type} in stream ${stop.event.stream}, id ${stop.event.id}): ${stop.error}`;

/** Writes the stop beside the checkpoint so `loupe projections status` and other processes see it. */
export const recordStop = async (db: CommonQueryMethods, stop: ProjectionStop): Promise<void> => {
  const [tx, seq] = stop.event.position.split(':');
  await db.query(sql.unsafe`
    UPDATE projection_checkpoints SET stopped_event_id = ${stop.event.id}, stopped_stream = ${stop.event.stream},
      stopped_type = ${stop.event.type}, stopped_tx = ${tx!}, stopped_seq = ${seq!}, stopped_error = ${stop.error},
      stopped_since = ${stop.since}
    WHERE name = ${stop.projection}`);
};

export const clearStop = async (db: CommonQueryMethods, projection: string): Promise<void> => {
  await db.query(sql.unsafe`
    UPDATE projection_checkpoints SET stopped_event_id = NULL, stopped_stream = NULL, stopped_type = NULL,
      stopped_tx = NULL, stopped_seq = NULL, stopped_error = NULL, stopped_since = NULL
    WHERE name = ${projection} AND stopped_event_id IS NOT NULL`);
};

/** The stop columns of `projection_checkpoints` (select them with `STOP_COLUMNS`). */
export const stopColumns = z.object({
  stopped_event_id: z.string().nullable(),
  stopped_stream: z.string().nullable(),
  stopped_type: z.string().nullable(),
  stopped_tx: z.bigint().nullable(),
  stopped_seq: z.bigint().nullable(),
  stopped_error: z.string().nullable(),
  stopped_since: z.number().nullable(),
});

export const STOP_COLUMNS = sql.fragment`stopped_event_id, stopped_stream, stopped_type, stopped_tx, stopped_seq, stopped_error, stopped_since`;

export const stopFromRow = (projection: string, row: z.infer<typeof stopColumns> | null): ProjectionStop | null =>
  row?.stopped_event_id == null
    ? null
    : {
        projection,
        event: {
          id: row.stopped_event_id,
          stream: row.stopped_stream ?? '',
          type: row.stopped_type ?? '',
          position: `${row.stopped_tx}:${row.stopped_seq}`,
        },
        error: row.stopped_error ?? '',
        since: new Date(row.stopped_since ?? 0).toISOString(),
      };
