import type { IngestBudget, IngestLease } from './ingestBudget.ts';

export type LagGateOptions = {
  /** Past this many seconds of projection lag, new exports are refused; 0 never refuses. */
  readonly maxLagSeconds: number;
  /** The current projection lag in seconds (a sampled number: this is asked on every request). */
  readonly lagSeconds: () => number;
  /** Told once per refused request (metrics). */
  readonly onRefused?: () => void;
  /** Told when the gate closes or opens again (one log line each, not one per request). */
  readonly onChange?: (closed: boolean, lagSeconds: number) => void;
};

/** The share of the bound at which the gate closes. */
export const CLOSE_AT_FRACTION = 0.85;

/**
 * Ingest that keeps pace with the projections. Spans acknowledged while the read models trail by
 * minutes are spans users cannot see for minutes, and the backlog (and memory) would grow without
 * bound under sustained load. Past the configured lag, exports are refused the way a full in-flight
 * budget refuses them: HTTP 503 + Retry-After, gRPC RESOURCE_EXHAUSTED + RetryInfo, before the
 * body is read; exporters back off and retry, and nothing acknowledged is ever lost.
 *
 * It wraps the shared IngestBudget, so both receivers refuse through their existing path: a lease
 * opened while the gate is closed can neither grow nor claim a request slot. Requests already
 * admitted finish. The lag counts running read models only (see LagMonitor.runningLagSeconds): a
 * read model stopped at a poison event waits for an operator, and refusing ingest meanwhile would
 * turn one bad event into data lost at every exporter.
 */
export const gateBudgetOnLag = (budget: IngestBudget, options: LagGateOptions): IngestBudget => {
  let closed = false;
  // The gate closes a little before the bound: what was admitted before it closed is still on its
  // way to the read model, and the lag kept rising by up to 2.4 s past a 30 s bound when the gate
  // closed at the bound itself (5-minute sustained run, BENCHMARKS.md §10).
  const closeAt = options.maxLagSeconds * CLOSE_AT_FRACTION;
  const isClosed = () => {
    const lag = options.lagSeconds();
    const now = options.maxLagSeconds > 0 && lag > closeAt;
    if (now !== closed) {
      closed = now;
      options.onChange?.(now, lag);
    }
    return now;
  };
  // Short: the gate reopens as soon as the backlog fits the bound again (sampled every second), and
  // a projection left without work while exporters wait is capacity lost (measured: with 8 s the
  // tracing read model idled between refusals and ingest ran at two thirds of what it could apply).
  const retryAfter = () => (closed ? Math.min(10, Math.max(1, Math.ceil(options.maxLagSeconds / 10))) : budget.retryAfterSeconds);

  const refusedLease = (lease: IngestLease): IngestLease => {
    let told = false;
    const refuse = () => {
      if (!told) options.onRefused?.();
      told = true;
      return false;
    };
    return { ...lease, grow: refuse, claimSlot: refuse };
  };

  return {
    get retryAfterSeconds() {
      return retryAfter();
    },
    inFlight: () => budget.inFlight(),
    open() {
      const lease = budget.open();
      return isClosed() ? refusedLease(lease) : lease;
    },
    tryAcquire(bytes) {
      if (!isClosed()) return budget.tryAcquire(bytes);
      options.onRefused?.();
      return null;
    },
  };
};
