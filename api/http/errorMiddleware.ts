import type Koa from 'koa';
import { SchemaValidationError } from 'slonik';
import { DomainError } from '../../domain/errors.ts';
import { AppendTooLargeError, WrongExpectedRevisionError } from '../../domain/eventstore/types.ts';
import { ProjectionStoppedError, ProjectionTimeoutError } from '../../projections/projectionRunner.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './databaseUnavailable.ts';
import { HttpError } from './httpError.ts';
import { httpErrorOf } from './httpErrorOf.ts';

type Shaped = { status: number; code: string; detail: string; headers?: Readonly<Record<string, string>> };

/** Errors thrown by other layers that carry their own HTTP meaning (e.g. ingest's IngestError). */
const isExposedError = (e: unknown): e is Error & { status: number; code?: string; expose: true; headers?: Record<string, string> } =>
  typeof e === 'object' &&
  e !== null &&
  (e as { expose?: unknown }).expose === true &&
  typeof (e as { status?: unknown }).status === 'number';

export const shapeError = (thrown: unknown): Shaped | null => {
  // Routes outside the kit (login, GraphQL's transport) throw domain refusals too: the same one map.
  const error = thrown instanceof DomainError ? httpErrorOf(thrown) : thrown;
  if (error instanceof HttpError) return { status: error.status, code: error.code, detail: error.message, headers: error.headers };
  // The log (EventStoreDB's MaxAppendSize) refused the write for its size: the same request would be refused again.
  if (error instanceof AppendTooLargeError)
    return { status: 413, code: 'payload_too_large', detail: `${error.message}; send less in one request` };
  if (error instanceof WrongExpectedRevisionError)
    return { status: 409, code: error.code, detail: 'The resource was changed concurrently; retry.' };
  if (error instanceof ProjectionStoppedError)
    return { status: error.status, code: error.code, detail: error.message, headers: error.headers };
  if (error instanceof ProjectionTimeoutError)
    return {
      status: 503,
      code: error.code,
      detail: 'The change is stored but not yet visible; retry shortly.',
      headers: { 'retry-after': '1' },
    };
  if (error instanceof SchemaValidationError) return null;
  if (isExposedError(error))
    return { status: error.status, code: error.code ?? `http_${error.status}`, detail: error.message, headers: error.headers };
  if (isDatabaseUnavailable(error))
    return {
      status: 503,
      code: 'database_unavailable',
      detail: 'The database is unreachable; retry shortly.',
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  return null;
};

/** One error shape for every route: `{"detail": ..., "code": ...}`; unexpected errors are logged, never leaked. */
export const errorMiddleware = (): Koa.Middleware => async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { detail: `Not Found: ${ctx.method} ${ctx.path}`, code: 'route_not_found' };
    }
  } catch (error) {
    const shaped = shapeError(error);
    if (shaped) {
      // Still worth a line in the log: the operator needs to know, the client only to retry.
      if (shaped.code === 'database_unavailable') ctx.state.log?.warn({ err: error }, 'database unavailable');
      ctx.status = shaped.status;
      for (const [k, v] of Object.entries(shaped.headers ?? {})) ctx.set(k, v);
      ctx.body = { detail: shaped.detail, code: shaped.code };
      return;
    }
    ctx.state.log?.error({ err: error }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { detail: 'Internal server error', code: 'internal_error' };
  }
};
