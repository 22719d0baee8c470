import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { DomainError } from '../domain/errors.ts';
import { decodeAndRoute } from './decodeJob.ts';
import type { ExportDecoder } from './exportDecoder.ts';
import { exportTraces } from './exportTraces.ts';
import { grpcRetryInfoMetadata } from './grpcRetryInfo.ts';
import type { IngestBudget, IngestLease } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';
import { encodeOtlpProtobufResponse } from './otlpProtobuf.ts';
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
  /** Decodes messages (large ones off the main thread); by default everything is decoded inline. */
  readonly decoder?: ExportDecoder;
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

/**
 * Whether grpc-js will inflate this call's message. grpc-js keeps the grpc-encoding header on its
 * own call object only (it strips it from the metadata); when that is not visible (another
 * interceptor in between, a grpc-js that renamed it), assume the worst.
 */
const mayInflate = (call: grpc.ServerInterceptingCallInterface): boolean => {
  const encoding = (call as { incomingEncoding?: unknown }).incomingEncoding;
  return encoding !== 'identity';
};

export const startOtlpGrpcServer = async <P = null>(options: OtlpGrpcServerOptions<P>): Promise<OtlpGrpcServer> => {
  /** Leases taken at admission, for the handler of the same call (grpc-js hands it the same Metadata object). */
  const admitted = new WeakMap<grpc.Metadata, IngestLease>();

  /**
   * Admission before grpc-js reads the message. grpc-js inflates a compressed message itself, up
   * to the size limit, before any handler sees it, so the budget must be checked earlier: the
   * whole limit is reserved when the call's metadata arrives (the message is not read until the
   * metadata is passed on), cut down to the real size in the handler. Past the budget the call is
   * refused with RESOURCE_EXHAUSTED + RetryInfo without reading a byte of it. Uncompressed
   * messages are counted once read: they cost what the client actually sent.
   */
  const admission: grpc.ServerInterceptor = (_method, call) => {
    let lease: IngestLease | null = null;
    let cancelled = false;
    const admit = (metadata: grpc.Metadata, proceed: (metadata: grpc.Metadata) => void) => {
      if (cancelled) return;
      lease = options.budget.open();
      if (mayInflate(call) && !lease.grow(options.maxRequestBytes)) {
        lease.release();
        const refusal = busy();
        intercepted.sendStatus({ code: refusal.code, details: refusal.details, metadata: refusal.metadata });
        return;
      }
      admitted.set(metadata, lease);
      proceed(metadata);
    };
    const intercepted: grpc.ServerInterceptingCall = new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, proceed) => {
            // Held while the read models catch up (lagGate.ts), before the message is read.
            const held = options.budget.whenOpen?.();
            if (held) void held.then(() => admit(metadata, proceed));
            else admit(metadata, proceed);
          },
          onCancel: () => {
            cancelled = true;
            lease?.release();
          },
        }),
      sendStatus: (status, proceed) => {
        lease?.release();
        proceed(status);
      },
    });
    return intercepted;
  };

  const server = new grpc.Server({ 'grpc.max_receive_message_length': options.maxRequestBytes, interceptors: [admission] });
  const decode = options.decoder?.decode ?? (async (job: Parameters<ExportDecoder['decode']>[0]) => decodeAndRoute(job));

  const busy = () => {
    const message = 'the server is at capacity for span ingest; retry later';
    return failure(
      grpc.status.RESOURCE_EXHAUSTED,
      message,
      grpcRetryInfoMetadata(grpc.status.RESOURCE_EXHAUSTED, message, options.budget.retryAfterSeconds),
    );
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
    const lease = admitted.get(call.metadata) ?? options.budget.open();
    try {
      const principal = await principalOf(call.metadata);
      // The message is in memory now: hold exactly its size (a reserved worst case shrinks to it).
      lease.shrinkTo(call.request.length);
      if (!lease.claimSlot() || !lease.grow(call.request.length)) throw busy();
      const routed = await decode({
        body: call.request,
        format: 'protobuf',
        projectHeader: firstString(call.metadata, PROJECT_NAME_HEADER),
        defaultProjectName: options.defaultProjectName,
      });
      return encodeOtlpProtobufResponse(
        await exportTraces(routed, {
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
    server.bindAsync(address, options.credentials ?? grpc.ServerCredentials.createInsecure(), (e, bound) =>
      e ? reject(e) : resolve(bound),
    ),
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
