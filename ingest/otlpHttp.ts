import type { Context, Middleware } from 'koa';
import { serverBusy } from './busy.ts';
import { contentEncodingOf, decompress } from './decompress.ts';
import { exportTraces } from './exportTraces.ts';
import type { IngestBudget } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';
import { decodeOtlpJson, encodeOtlpJsonResponse } from './otlpJson.ts';
import { decodeOtlpProtobuf, encodeOtlpProtobufResponse } from './otlpProtobuf.ts';
import { bodyTooLarge, readBody } from './readBody.ts';
import { PROJECT_NAME_HEADER } from './routeSpans.ts';
import type { SpanSink } from './spanSink.ts';

export type OtlpHttpOptions<P> = {
  readonly sink: SpanSink<P>;
  /** Limit for the body as sent and again once decompressed. */
  readonly maxRequestBytes: number;
  readonly defaultProjectName: string;
  readonly budget: IngestBudget;
  /** Principal and request id handed to the sink; by default `ctx.state.principal` and `ctx.state.requestId`. */
  readonly contextOf?: (ctx: Context) => { readonly principal: P; readonly requestId: string | null };
};

type Format = 'protobuf' | 'json';

const formatOf = (contentType: string): Format => {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/x-protobuf' || mime === 'application/protobuf') return 'protobuf';
  if (mime === 'application/json') return 'json';
  throw new IngestError(
    'unsupported_media_type',
    `unsupported content type "${contentType}": use application/x-protobuf or application/json`,
  );
};

const defaultContextOf = (ctx: Context) => ({
  principal: ctx.state.principal ?? null,
  requestId: typeof ctx.state.requestId === 'string' ? ctx.state.requestId : ctx.get('x-request-id') || null,
});

/**
 * Handles an OTLP/HTTP trace export (`POST /v1/traces`; the caller mounts it on that route
 * after authentication, and before any body parser: it reads the raw body itself).
 * Every refusal is an IngestError (400/413/415/503) for the app's error middleware; the success
 * answer, an ExportTraceServiceResponse in the request's format, goes out only after the sink
 * has made the spans durable.
 */
export const createOtlpHttpMiddleware = <P = unknown>(options: OtlpHttpOptions<P>): Middleware => {
  const contextOf = options.contextOf ?? (defaultContextOf as (ctx: Context) => { principal: P; requestId: string | null });
  const max = options.maxRequestBytes;
  return async (ctx) => {
    const format = formatOf(ctx.get('content-type'));
    const encoding = contentEncodingOf(ctx.get('content-encoding') || undefined);
    const declared = ctx.request.length;
    if (declared !== undefined && declared > max) throw bodyTooLarge(max);
    if (ctx.req.readableEnded) throw new Error('the OTLP request body was already consumed: mount the OTLP route before any body parser');

    // Reserve before reading: a refused request costs no memory. Without a Content-Length the
    // worst case is reserved.
    const lease = options.budget.tryAcquire(declared ?? max);
    if (!lease) throw serverBusy(options.budget);
    try {
      const body = await decompress(await readBody(ctx.req, max), encoding, max);
      if (!lease.grow(body.length)) throw serverBusy(options.budget);
      const request = format === 'json' ? decodeOtlpJson(body) : decodeOtlpProtobuf(body);
      const { principal, requestId } = contextOf(ctx);
      const outcome = await exportTraces(request, {
        projectHeader: ctx.get(PROJECT_NAME_HEADER) || null,
        defaultProjectName: options.defaultProjectName,
        sink: options.sink,
        context: { transport: 'http', principal, requestId },
      });
      ctx.status = 200;
      if (format === 'json') {
        ctx.type = 'application/json';
        ctx.body = encodeOtlpJsonResponse(outcome);
      } else {
        ctx.type = 'application/x-protobuf';
        ctx.body = Buffer.from(encodeOtlpProtobufResponse(outcome));
      }
    } finally {
      lease.release();
    }
  };
};
