/**
 * Whether an error means the database cannot be reached right now (down, restarting, refusing
 * connections, connection cut), as opposed to a query that is wrong. Such a failure is worth
 * retrying: HTTP answers 503 with Retry-After, which standard OTLP exporters retry (they drop
 * batches answered 500). Recognised by name and code so that it holds for slonik's wrappers,
 * for pg's own errors and for socket errors, also when wrapped as a `cause`.
 */
const UNAVAILABLE_NAMES = new Set(['ConnectionError', 'BackendTerminatedError', 'BackendTerminatedUnexpectedlyError']);

/** SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, database does not exist (dropped). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '3D000']);

const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const UNAVAILABLE_MESSAGES = [/connection terminated/i, /not queryable/i, /not currently accepting connections/i, /connection timeout/i];

export const DATABASE_RETRY_AFTER_SECONDS = 5;

export const isDatabaseUnavailable = (error: unknown): boolean => {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e = current as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name)) return true;
    if (
      typeof e.code === 'string' &&
      (e.code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_SOCKET_CODES.has(e.code))
    )
      return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(e.message as string))) return true;
    current = e.cause;
  }
  return false;
};
