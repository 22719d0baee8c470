/**
 * A rejected OTLP request. `status` is the HTTP status; `code` is stable for clients; `headers`
 * go on the response (Koa's own error handler sets `err.headers` too). `expose` lets Koa show
 * the message, which always says what failed and never echoes the body.
 */
export type IngestErrorCode =
  | 'malformed_request'
  | 'unsupported_media_type'
  | 'unsupported_content_encoding'
  | 'payload_too_large'
  | 'request_timeout'
  | 'server_busy'
  | 'storage_unavailable';

type IngestStatus = 400 | 408 | 413 | 415 | 503;

const STATUS: Record<IngestErrorCode, IngestStatus> = {
  malformed_request: 400,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  payload_too_large: 413,
  request_timeout: 408,
  server_busy: 503,
  storage_unavailable: 503,
};

export class IngestError extends Error {
  readonly status: IngestStatus;
  readonly expose = true;

  constructor(
    readonly code: IngestErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'IngestError';
    this.status = STATUS[code];
  }
}
