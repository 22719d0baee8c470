import type { Context, Middleware } from 'koa';
import { DomainError } from '../domain/errors.ts';
import { decodeAndRoute, type OtlpFormat } from './decodeJob.ts';
import { contentEncodingOf } from './decompress.ts';
import type { ExportDecoder } from './exportDecoder.ts';
import { exportTraces } from './exportTraces.ts';
import type { IngestBudget } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';
import { encodeOtlpJsonResponse } from './otlpJson.ts';
import { encodeOtlpProtobufResponse } from './otlpProtobuf.ts';
import { bodyTooLarge, type BodyPace } from './readBody.ts';
import { PROJECT_NAME_HEADER } from './routeSpans.ts';
import type { SpanSink } from './spanSink.ts';
import { withAdmittedBody } from './withAdmittedBody.ts';

export type OtlpHttpOptions<P> = {
  readonly sink: SpanSink<P>;
  /** Limit for the body as sent and again once decompressed. */
  readonly maxRequestBytes: number;
  readonly defaultProjectName: string;
  readonly budget: IngestBudget;
  /** Decodes bodies (large ones off the main thread); by default everything is decoded inline. */
  readonly decoder?: ExportDecoder;
  /** How long and how slowly a body may arrive; DEFAULT_BODY_PACE when not given. */
  readonly pace?: BodyPace;
  /** Principal and request id handed to the sink; by default `ctx.state.principal` and `ctx.state.requestId`. */
  readonly contextOf?: (ctx: Context) => { readonly principal: P; readonly requestId: string | null };
};

/** The defaults of SERVICE_OTLP_BODY_TIMEOUT_SECONDS and SERVICE_OTLP_MIN_BODY_BYTES_PER_SECOND (ops/config.ts). */
export const DEFAULT_BODY_PACE: BodyPace = { timeoutMs: 60_000, minBytesPerSecond: 16 * 1024, graceMs: 5_000 };

const inlineDecoder: ExportDecoder = { decode: async (job) => decodeAndRoute(job), close: async () => undefined };

const formatOf = (contentType: string): OtlpFormat => {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/x-protobuf' || mime === 'application/protobuf') return 'protobuf';
  if (mime === 'application/json') return 'json';
  throw new IngestError(
    'unsupported_media_type',
    `unsupported content type "${contentType}": use application/x-protobuf or application/json`,
  );
};

/** Seconds an exporter is asked to wait when the spans could not be stored (e.g. the database is restarting). */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A sink failure, refused or not: nothing was acknowledged, and standard exporters retry only
 * 429/502/503/504 (a 500 batch is dropped), so anything but a refusal of the spans themselves
 * becomes 503 + Retry-After, as gRPC answers UNAVAILABLE. The cause is logged, never sent.
 */
const storeFailure = (e: unknown, ctx: Context): unknown => {
  if (e instanceof IngestError || e instanceof DomainError) return e;
  ctx.state.log?.error({ err: e }, 'OTLP export could not be stored');
  return new IngestError('storage_unavailable', 'the spans could not be stored; retry later', {
    'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS),
  });
};

const defaultContextOf = (ctx: Context) => ({
  principal: ctx.state.principal ?? null,
  requestId: typeof ctx.state.requestId === 'string' ? ctx.state.requestId : ctx.get('x-request-id') || null,
});

/**
 * Handles an OTLP/HTTP trace export (`POST /v1/traces`; the caller mounts it on that route
 * after authentication, and before any body parser: it reads the raw body itself).
 * Every refusal is an IngestError (400/408/413/415/503) or a DomainError for the app's error middleware; the success
 * answer, an ExportTraceServiceResponse in the request's format, goes out only after the sink
 * has made the spans durable.
 */
export const createOtlpHttpMiddleware = <P = unknown>(options: OtlpHttpOptions<P>): Middleware => {
  const contextOf = options.contextOf ?? (defaultContextOf as (ctx: Context) => { principal: P; requestId: string | null });
  const max = options.maxRequestBytes;
  const decoder = options.decoder ?? inlineDecoder;
  const pace = options.pace ?? DEFAULT_BODY_PACE;
  return async (ctx) => {
    const format = formatOf(ctx.get('content-type'));
    const encoding = contentEncodingOf(ctx.get('content-encoding') || undefined);
    const declared = ctx.request.length;
    if (declared !== undefined && declared > max) throw bodyTooLarge(max);
    if (ctx.req.readableEnded) throw new Error('the OTLP request body was already consumed: mount the OTLP route before any body parser');

    await withAdmittedBody(ctx.req, { budget: options.budget, maxBytes: max, encoding, pace }, async (body) => {
      const routed = await decoder.decode({
        body,
        format,
        projectHeader: ctx.get(PROJECT_NAME_HEADER) || null,
        defaultProjectName: options.defaultProjectName,
      });
      const { principal, requestId } = contextOf(ctx);
      const outcome = await exportTraces(routed, { sink: options.sink, context: { transport: 'http', principal, requestId } }).catch(
        (e: unknown) => {
          throw storeFailure(e, ctx);
        },
      );
      ctx.status = 200;
      if (format === 'json') {
        ctx.type = 'application/json';
        ctx.body = encodeOtlpJsonResponse(outcome);
      } else {
        ctx.type = 'application/x-protobuf';
        ctx.body = Buffer.from(encodeOtlpProtobufResponse(outcome));
      }
    });
  };
};
