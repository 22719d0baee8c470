import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/**
 * Trailers for a refused export carrying `grpc-status-details-bin`: a google.rpc.Status with a
 * google.rpc.RetryInfo. OTLP says a client retries RESOURCE_EXHAUSTED only when the server sends
 * RetryInfo, so this is gRPC's Retry-After. Encoded by hand: three tiny messages do not justify
 * vendoring googleapis protos.
 */
export const grpcRetryInfoMetadata = (code: grpc.status, message: string, retryAfterSeconds: number): grpc.Metadata => {
  const W = protobuf.Writer;
  const duration = W.create().uint32(8).int64(retryAfterSeconds).finish(); // Duration.seconds = 1
  const retryInfo = W.create().uint32(10).bytes(duration).finish(); // RetryInfo.retry_delay = 1
  const any = W.create()
    .uint32(10)
    .string('type.googleapis.com/google.rpc.RetryInfo') // Any.type_url = 1
    .uint32(18)
    .bytes(retryInfo) // Any.value = 2
    .finish();
  const status = W.create()
    .uint32(8)
    .int32(code) // Status.code = 1
    .uint32(18)
    .string(message) // Status.message = 2
    .uint32(26)
    .bytes(any) // Status.details = 3
    .finish();
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(status));
  return metadata;
};
