import { decodeOtlpJson } from './otlpJson.ts';
import { decodeOtlpProtobuf } from './otlpProtobuf.ts';
import { routeSpans, type RoutedSpans } from './routeSpans.ts';

export type OtlpFormat = 'protobuf' | 'json';

/** One export body to decode and route, with what routing needs from the request. */
export type DecodeJob = {
  readonly body: Uint8Array;
  readonly format: OtlpFormat;
  readonly projectHeader: string | null;
  readonly defaultProjectName: string;
};

/** Wire decoding then validation and grouping by project: the same code on and off the main thread. */
export const decodeAndRoute = (job: DecodeJob): RoutedSpans =>
  routeSpans(job.format === 'json' ? decodeOtlpJson(job.body) : decodeOtlpProtobuf(job.body), job);

/** Main thread → decode worker. */
export type WorkerRequest =
  | { readonly kind: 'decode'; readonly id: number; readonly job: DecodeJob }
  | {
      readonly kind: 'slice';
      readonly id: number;
      readonly batch: number;
      readonly what: 'resources' | 'spans';
      readonly from: number;
      readonly count: number;
    }
  | { readonly kind: 'drop'; readonly id: number };

/** Decode worker → main thread. */
export type WorkerReply =
  | {
      readonly kind: 'routed';
      readonly id: number;
      readonly batches: ReadonlyArray<{ readonly projectName: string; readonly resources: number; readonly spans: number }>;
      readonly acceptedSpans: number;
      readonly rejectedSpans: number;
      readonly errorMessage: string;
    }
  | {
      readonly kind: 'failed';
      readonly id: number;
      readonly name: string;
      readonly message: string;
      readonly code: string | null;
      readonly ingest: boolean;
    }
  | { readonly kind: 'slice'; readonly id: number; readonly items: readonly unknown[] };
