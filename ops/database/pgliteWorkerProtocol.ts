/** Messages between the server and the worker thread that owns embedded PGlite (pgliteWorker.ts). */

export type PgliteWorkerStart = { readonly dataDir: string; readonly startParams: readonly string[] };

export type PgliteWorkerRequest =
  | {
      readonly kind: 'query';
      readonly id: number;
      readonly sql: string;
      readonly params: readonly unknown[];
      /**
       * Types whose values come back as PostgreSQL's text: the caller parses them with its own
       * parsers (functions cannot cross threads). Every other type is parsed by PGlite as usual.
       */
      readonly rawTypes: readonly number[];
      /** COPY … FROM '/dev/blob' data. */
      readonly blob?: Blob;
    }
  | { readonly kind: 'close'; readonly id: number };

export type PgliteWorkerResult = {
  readonly rows: Record<string, unknown>[];
  readonly fields: { readonly name: string; readonly dataTypeID: number }[];
  readonly affectedRows?: number;
};

export type PgliteWorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'failedToStart'; readonly error: SerializedError }
  | { readonly kind: 'result'; readonly id: number; readonly result: PgliteWorkerResult }
  | { readonly kind: 'error'; readonly id: number; readonly error: SerializedError }
  | { readonly kind: 'closed'; readonly id: number };

/** A database error's message and fields (SQLSTATE `code`, `detail`, `constraint`, …). */
export type SerializedError = { readonly message: string; readonly name: string; readonly fields: Record<string, unknown> };

export const serializeError = (error: unknown): SerializedError => {
  const e = error instanceof Error ? error : new Error(String(error));
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e))
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  return { message: e.message, name: e.name, fields };
};

export const deserializeError = (error: SerializedError): Error =>
  Object.assign(new Error(error.message), error.fields, { name: error.name });
