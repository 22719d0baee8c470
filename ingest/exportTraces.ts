import type { RoutedSpans } from './routeSpans.ts';
import type { IngestRequestContext, SpanSink } from './spanSink.ts';

export type ExportOutcome = {
  readonly acceptedSpans: number;
  readonly rejectedSpans: number;
  readonly errorMessage: string;
};

/** The transport-independent end of an export: store the routed spans durably, then say what was kept. */
export const exportTraces = async <P>(
  routed: RoutedSpans,
  options: {
    readonly sink: SpanSink<P>;
    readonly context: IngestRequestContext<P>;
  },
): Promise<ExportOutcome> => {
  if (routed.batches.length > 0) await options.sink(routed.batches, options.context);
  return { acceptedSpans: routed.acceptedSpans, rejectedSpans: routed.rejectedSpans, errorMessage: routed.errorMessage };
};
