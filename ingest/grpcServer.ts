import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { DomainError } from '../domain/errors.ts';
import { exportTraces } from './exportTraces.ts';
import { grpcRetryInfoMetadata } from './grpcRetryInfo.ts';
import type { IngestBudget } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';
import { decodeOtlpProtobuf, encodeOtlpProtobufResponse } from './otlpProtobuf.ts';
import { PROJECT_NAME_HEADER } from './routeSpans.ts';
import type { SpanSink } from './spanSink.ts';

export const TRACE_SERVICE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export type GrpcAuthResult<P> =
  | { readonly ok: true; readonly principal: P }
  | { readonly ok: false; readonly code: 'UNAUTHENTICATED' | 'PERMISSION_DENIED'; readonly message: string };

export type OtlpGrpcServerOptions<P> = {
  readonly host: string;
  /** 0 picks a free port; the bound one is returned. */
  readonly port: number;
  readonly sink: SpanSink<P>;
  readonly budget: IngestBudget;
  /** Largest message accepted, after gzip decompression (grpc-js enforces it while reading). */
  readonly maxRequestBytes: number;
  readonly defaultProjectName: string;
  /** Checks the `authorization` metadata (`Bearer <token>`); without it every call is let in with a null principal. */
  readonly authenticate?: (request: { readonly authorization: string | null }) => Promise<GrpcAuthResult<P>>;
  /** Defaults to plaintext, like Phoenix's 4317. */
  readonly credentials?: grpc.ServerCredentials;
  /** Told about failures the exporter only sees as UNAVAILABLE (e.g. the sink threw). */
  readonly reportError?: (error: unknown) => void;
};

export type OtlpGrpcServer = {
  readonly port: number;
  /** Stops accepting calls and waits for running ones, forcing them closed after `graceMs`. */
  close(graceMs?: number): Promise<void>;
};

/**
 * Hand-written service definition: the request stays raw bytes so that the handler decodes it
 * with the same protobufjs decoder as HTTP, and only after auth and the budget let it in.
 */
export const rawTraceService: grpc.ServiceDefinition = {
  Export: {
    path: TRACE_SERVICE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Uint8Array) => Buffer.from(b),
    responseDeserialize: (b: Buffer) => b,
  },
};

/** Errors this module made on purpose; anything else thrown (even a gRPC error from a store client) goes through toServiceError. */
const refusals = new WeakSet<object>();

const failure = (code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.ServiceError => {
  const error = Object.assign(new Error(details), { code, details, metadata });
  refusals.add(error);
  return error;
};

const firstString = (metadata: grpc.Metadata, key: string): string | null => {
  const v = metadata.get(key)[0];
  return typeof v === 'string' && v !== '' ? v : null;
};

export const startOtlpGrpcServer = async <P = null>(options: OtlpGrpcServerOptions<P>): Promise<OtlpGrpcServer> => {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': options.maxRequestBytes });

  const busy = () => {
    const message = 'the server is at capacity for span ingest; retry later';
    return failure(grpc.status.RESOURCE_EXHAUSTED, message, grpcRetryInfoMetadata(grpc.status.RESOURCE_EXHAUSTED, message, options.budget.retryAfterSeconds));
  };

  /** What the exporter is told; anything unexpected is UNAVAILABLE so it retries (nothing was acknowledged). */
  const toServiceError = (e: unknown): grpc.ServiceError => {
    if (e instanceof IngestError) {
      if (e.code === 'server_busy') return busy();
      if (e.code === 'payload_too_large') return failure(grpc.status.RESOURCE_EXHAUSTED, e.message);
      return failure(grpc.status.INVALID_ARGUMENT, e.message);
    }
    if (e instanceof DomainError && e.kind === 'invalid') return failure(grpc.status.INVALID_ARGUMENT, e.message);
    if (e instanceof DomainError && e.kind === 'forbidden') return failure(grpc.status.PERMISSION_DENIED, e.message);
    if (e instanceof DomainError && e.kind === 'unauthenticated') return failure(grpc.status.UNAUTHENTICATED, e.message);
    options.reportError?.(e);
    return failure(grpc.status.UNAVAILABLE, 'spans could not be stored; retry later');
  };

  const principalOf = async (metadata: grpc.Metadata): Promise<P> => {
    if (!options.authenticate) return null as P;
    const result = await options.authenticate({ authorization: firstString(metadata, 'authorization') });
    if (result.ok) return result.principal;
    throw failure(grpc.status[result.code], result.message);
  };

  const handle = async (call: grpc.ServerUnaryCall<Buffer, Uint8Array>): Promise<Uint8Array> => {
    const principal = await principalOf(call.metadata);
    const lease = options.budget.tryAcquire(call.request.length);
    if (!lease) throw busy();
    try {
      return encodeOtlpProtobufResponse(
        await exportTraces(decodeOtlpProtobuf(call.request), {
          projectHeader: firstString(call.metadata, PROJECT_NAME_HEADER),
          defaultProjectName: options.defaultProjectName,
          sink: options.sink,
          context: { transport: 'grpc', principal, requestId: firstString(call.metadata, 'x-request-id') ?? randomUUID() },
        }),
      );
    } finally {
      lease.release();
    }
  };

  server.addService(rawTraceService, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>) => {
      handle(call).then(
        (response) => callback(null, response),
        (e: unknown) => callback(e instanceof Error && refusals.has(e) ? (e as grpc.ServiceError) : toServiceError(e)),
      );
    },
  });

  const address = options.host.includes(':') ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, options.credentials ?? grpc.ServerCredentials.createInsecure(), (e, bound) => (e ? reject(e) : resolve(bound))),
  );

  return {
    port,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
};
