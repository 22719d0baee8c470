/**
 * How much export work may be in memory at once, shared by the HTTP and gRPC receivers. Past it
 * a request is refused at once (HTTP 503 + Retry-After, gRPC RESOURCE_EXHAUSTED) instead of
 * queued, so memory stays bounded and exporters back off and retry.
 */
export type IngestBudget = {
  /** Reserves one request slot and `bytes`; null when that would exceed the budget. */
  tryAcquire(bytes: number): IngestLease | null;
  /** Seconds a refused client is told to wait. */
  readonly retryAfterSeconds: number;
  inFlight(): { readonly requests: number; readonly bytes: number };
};

export type IngestLease = {
  /** Raises this request's reservation to `bytes` (e.g. once decompressed); false if refused. */
  grow(bytes: number): boolean;
  /** Idempotent. */
  release(): void;
};

export type IngestBudgetOptions = {
  readonly maxInFlightRequests: number;
  readonly maxInFlightBytes: number;
  readonly retryAfterSeconds?: number;
};

export const createIngestBudget = (options: IngestBudgetOptions): IngestBudget => {
  let requests = 0;
  let bytes = 0;
  // A lone request may exceed the byte budget (up to the request size limit): otherwise a budget
  // set below the request limit would refuse such a request forever.
  const fits = (extra: number, alone: boolean) => alone || bytes + extra <= options.maxInFlightBytes;
  return {
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    inFlight: () => ({ requests, bytes }),
    tryAcquire(wanted) {
      if (requests >= options.maxInFlightRequests || !fits(wanted, requests === 0)) return null;
      requests++;
      bytes += wanted;
      let held = wanted;
      let released = false;
      return {
        grow(target) {
          if (released || target <= held) return !released;
          if (!fits(target - held, requests === 1)) return false;
          bytes += target - held;
          held = target;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          requests--;
          bytes -= held;
        },
      };
    },
  };
};
