/**
 * How much export work may be in memory at once, shared by the HTTP and gRPC receivers. Past it
 * a request is refused at once (HTTP 503 + Retry-After, gRPC RESOURCE_EXHAUSTED) instead of
 * queued, so memory stays bounded and exporters back off and retry.
 *
 * Two limits, taken at different moments:
 * - bytes: what a request holds in memory (its body as it arrives, then inflated). They are
 *   reserved as they arrive, never on the strength of a declared Content-Length, so a client that
 *   declares 64 MiB and sends 1 byte/s holds 1 byte/s of budget, not 64 MiB.
 * - request slots: how many requests may be decoded and stored at once. A slot is claimed only
 *   once the body has arrived, so slow uploads cannot use them all up.
 */
export type IngestBudget = {
  /** A lease holding no bytes and no slot yet: the receiver grows it as the body arrives. */
  open(): IngestLease;
  /** Open, grow to `bytes` and claim a slot at once (gRPC, whose message grpc-js has already read); null when refused. */
  tryAcquire(bytes: number): IngestLease | null;
  /**
   * Resolves when a request arriving now should go on to `open`/`tryAcquire`: at once, or once a
   * budget that holds requests back for a while (the projection lag gate) lets it through or gives
   * up on it (then `open` refuses it). Called before a byte of the body is read.
   */
  whenOpen?(): Promise<void>;
  /** Seconds a refused client is told to wait. */
  readonly retryAfterSeconds: number;
  inFlight(): { readonly requests: number; readonly bytes: number };
};

export type IngestLease = {
  /** Raises this request's reservation to `bytes` in total; false (nothing changed) if refused. */
  grow(bytes: number): boolean;
  /** Lowers this request's reservation to `bytes` (a worst case reserved earlier turned out smaller). */
  shrinkTo(bytes: number): void;
  /** Claims a request slot (idempotent); false if all are taken. */
  claimSlot(): boolean;
  /** Bytes reserved by this lease. */
  held(): number;
  /** Gives back bytes and slot. Idempotent. */
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
  // A request holding all the reserved bytes may exceed the byte budget (up to the request size
  // limit, which the receivers enforce): otherwise a budget set below the request limit would
  // refuse such a request forever.
  const fits = (extra: number, heldByCaller: number) => bytes === heldByCaller || bytes + extra <= options.maxInFlightBytes;

  const open = (): IngestLease => {
    let held = 0;
    let slot = false;
    let released = false;
    return {
      grow(target) {
        if (released) return false;
        if (target <= held) return true;
        if (!fits(target - held, held)) return false;
        bytes += target - held;
        held = target;
        return true;
      },
      shrinkTo(target) {
        if (released || target >= held) return;
        bytes -= held - Math.max(0, target);
        held = Math.max(0, target);
      },
      claimSlot() {
        if (released) return false;
        if (slot) return true;
        if (requests >= options.maxInFlightRequests) return false;
        requests++;
        slot = true;
        return true;
      },
      held: () => held,
      release() {
        if (released) return;
        released = true;
        if (slot) requests--;
        bytes -= held;
        held = 0;
      },
    };
  };

  return {
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    inFlight: () => ({ requests, bytes }),
    open,
    tryAcquire(wanted) {
      const lease = open();
      if (lease.claimSlot() && lease.grow(wanted)) return lease;
      lease.release();
      return null;
    },
  };
};
