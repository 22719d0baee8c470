import type { IngestBudget, IngestLease } from './ingestBudget.ts';

export type LagGateOptions = {
  /** Past this many seconds of projection lag, new exports are refused; 0 never refuses. */
  readonly maxLagSeconds: number;
  /** The current projection lag in seconds (a sampled number: this is asked on every request). */
  readonly lagSeconds: () => number;
  /** Told once per refused request (metrics). */
  readonly onRefused?: () => void;
  /**
   * How long (ms) a request that arrives while the gate is closed waits for it to open before it is
   * refused; 0 refuses at once. Default HOLD_MS.
   */
  readonly holdMs?: number;
  /** Told once per request held back (metrics). */
  readonly onHeld?: () => void;
  /** Told when the gate closes or opens again (one log line each, not one per request). */
  readonly onChange?: (closed: boolean, lagSeconds: number) => void;
};

/** The share of the bound at which the gate closes at the latest. */
export const CLOSE_AT_FRACTION = 0.85;
/**
 * Seconds of lag the gate keeps in reserve, whatever the bound: what it admits just before closing
 * lands after it closed, and that overshoot is time, not a share of the bound (requests already
 * reading their body, the read model's batch under way, the sample's age, a commit or a GC pause:
 * up to 1.9 s past the closing lag in a 5-minute sustained run, BENCHMARKS.md §13).
 */
export const CLOSE_MARGIN_SECONDS = 2;

/**
 * The lag from which the gate refuses: 85 % of the bound, or the bound less CLOSE_MARGIN_SECONDS
 * when that is lower, but never under half the bound (the read models must keep work queued while
 * exporters wait out their Retry-After).
 */
export const closingLag = (maxLagSeconds: number): number =>
  Math.max(maxLagSeconds / 2, Math.min(maxLagSeconds * CLOSE_AT_FRACTION, maxLagSeconds - CLOSE_MARGIN_SECONDS));

/**
 * A request arriving while the gate is closed waits this long for it to open before it is refused.
 * The gate usually opens within a read-model batch or two (well under a second); an exporter whose
 * request is held sends its body once, while a refused one has sent or will send it again after
 * its Retry-After, and refusals cost the bytes they read (measured: 402 refusals of 2.4 MB bodies
 * in one 100k-span run with a 3 s bound, BENCHMARKS.md §13). Exporters time out after 10 s by
 * default, so a hold stays well short of that.
 */
export const HOLD_MS = 2000;
/** At most this many requests wait at once; more are refused at once (each holds a connection). */
export const MAX_HELD = 32;
/** How often held requests are looked at; at most RELEASE_PER_TICK of them go on per look. */
const TICK_MS = 25;
/**
 * Released a few at a time, oldest first: all of them at once would admit a herd the lag sample
 * (every 250 ms) has not seen yet, and the lag would overshoot the bound.
 */
const RELEASE_PER_TICK = 1;

/**
 * Ingest that keeps pace with the projections. Spans acknowledged while the read models trail by
 * minutes are spans users cannot see for minutes, and the backlog (and memory) would grow without
 * bound under sustained load. Past the configured lag, exports are refused the way a full in-flight
 * budget refuses them: HTTP 503 + Retry-After, gRPC RESOURCE_EXHAUSTED + RetryInfo, before the
 * body is read; exporters back off and retry, and nothing acknowledged is ever lost. A request
 * arriving while the gate is closed is first held (`whenOpen`, before its body is read) for up to
 * HOLD_MS: ingest then slows to the projections' pace without refusals in the usual case.
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
  const closeAt = closingLag(options.maxLagSeconds);
  const isClosed = () => {
    const lag = options.lagSeconds();
    const now = options.maxLagSeconds > 0 && lag > closeAt;
    if (now !== closed) {
      closed = now;
      options.onChange?.(now, lag);
    }
    return now;
  };
  // Short: the gate reopens as soon as the backlog fits the bound again (sampled every 250 ms), and
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

  // Held requests, oldest first. A request goes on when the gate is open (a few per tick), or when
  // it has waited holdMs (then open() refuses it if the gate is still closed).
  const holdMs = options.holdMs ?? HOLD_MS;
  const held: { since: number; go: () => void }[] = [];
  let ticker: NodeJS.Timeout | null = null;
  const tick = () => {
    const now = Date.now();
    let released = 0;
    while (held.length > 0) {
      const open = released < RELEASE_PER_TICK && !isClosed();
      if (!open && now - held[0]!.since < holdMs) break;
      held.shift()!.go();
      if (open) released++;
    }
    if (held.length === 0 && ticker) {
      clearInterval(ticker);
      ticker = null;
    }
  };
  const whenOpen = (): Promise<void> => {
    // Nobody waiting and the gate open: straight on. Otherwise behind those already waiting.
    if (holdMs <= 0 || (held.length === 0 && !isClosed()) || held.length >= MAX_HELD) return Promise.resolve();
    options.onHeld?.();
    return new Promise((go) => {
      held.push({ since: Date.now(), go });
      // Not unref'd: a held request is work under way, and the ticker stops when none is held.
      ticker ??= setInterval(tick, TICK_MS);
    });
  };

  return {
    get retryAfterSeconds() {
      return retryAfter();
    },
    inFlight: () => budget.inFlight(),
    whenOpen,
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
