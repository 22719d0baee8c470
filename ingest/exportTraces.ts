import type { ExportRequestInput } from './exportRequest.ts';
import { routeSpans } from './routeSpans.ts';
import type { IngestRequestContext, SpanSink } from './spanSink.ts';

export type ExportOutcome = {
  readonly acceptedSpans: number;
  readonly rejectedSpans: number;
  readonly errorMessage: string;
};

/** The transport-independent part of an export: validate, group by project, store durably. */
export const exportTraces = async <P>(
  request: ExportRequestInput,
  options: {
    readonly projectHeader: string | null;
    readonly defaultProjectName: string;
    readonly sink: SpanSink<P>;
    readonly context: IngestRequestContext<P>;
  },
): Promise<ExportOutcome> => {
  const routed = routeSpans(request, options);
  if (routed.batches.length > 0) await options.sink(routed.batches, options.context);
  return { acceptedSpans: routed.acceptedSpans, rejectedSpans: routed.rejectedSpans, errorMessage: routed.errorMessage };
};
