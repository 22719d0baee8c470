import { decodePhoenixSpans, type PhoenixVerdict } from './decodePhoenixSpans.ts';
import { decodeOtlpJson } from './otlpJson.ts';
import { decodeOtlpProtobuf } from './otlpProtobuf.ts';
import { routeSpans, type RoutedSpans } from './routeSpans.ts';

export type OtlpFormat = 'protobuf' | 'json';

/** One export body to decode and route, with what routing needs from the request. */
export type OtlpDecodeJob = {
  readonly body: Uint8Array;
  readonly format: OtlpFormat;
  readonly projectHeader: string | null;
  readonly defaultProjectName: string;
};

/** A `POST /v1/projects/{id}/spans` body (Phoenix's span JSON): every span goes to the project named by the path. */
export type PhoenixSpansJob = {
  readonly body: Uint8Array;
  readonly format: 'phoenix';
  readonly projectName: string;
};

export type DecodeJob = OtlpDecodeJob | PhoenixSpansJob;

/** Routed spans; for a Phoenix body also what it held (decodePhoenixSpans.ts), which may refuse the request whole. */
export type DecodedSpans = RoutedSpans & { readonly phoenix?: PhoenixVerdict };

/** Wire decoding then validation and grouping by project: the same code on and off the main thread. */
export const decodeAndRoute = (job: DecodeJob): DecodedSpans =>
  job.format === 'phoenix'
    ? decodePhoenixSpans(job.body, job.projectName)
    : routeSpans(job.format === 'json' ? decodeOtlpJson(job.body) : decodeOtlpProtobuf(job.body), job);

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
      readonly phoenix?: PhoenixVerdict;
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
