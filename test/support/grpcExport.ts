import * as grpc from '@grpc/grpc-js';
import { rawTraceService } from '../../ingest/grpcServer.ts';
import { otlpTypesForTests as otlp } from '../ingest/sampleSpans.ts';

/**
 * One OTLP gRPC export of a single span (`name`, span id `spanId` in hex) to a server's gRPC port,
 * as an exporter sends it; resolves with the error the exporter would see, or null when accepted.
 * `deadlineMs` is the exporter's deadline (an exporter's own default is 10 s).
 */
export const grpcExport = (port: number, spanId: string, name = 'g', deadlineMs = 15_000) =>
  new Promise<grpc.ServiceError | null>((resolve) => {
    const Client = grpc.makeGenericClientConstructor(rawTraceService, 'TraceService');
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const request = otlp.request.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.alloc(16, 0xab),
                  spanId: Buffer.from(spanId, 'hex'),
                  name,
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000000000001',
                },
              ],
            },
          ],
        },
      ],
    });
    const body = Buffer.from(otlp.request.encode(request).finish());
    (client as unknown as { Export: (b: Buffer, o: object, cb: (e: grpc.ServiceError | null) => void) => void }).Export(
      body,
      { deadline: Date.now() + deadlineMs },
      (e) => {
        client.close();
        resolve(e);
      },
    );
  });
