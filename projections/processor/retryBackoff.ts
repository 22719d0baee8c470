/**
 * When a stopped read model or a failing reactor is tried again: after `first` ms, then a pause
 * doubling up to `max` while it keeps failing the same way. One per lane, so one lane's failures
 * never delay another's.
 */
export type RetryBackoff = {
  /** A failure: the next try is `first` ms away for a new cause, twice the last pause for the same one (as the caller judges). */
  failed(sameCause: boolean): void;
  /** Succeeded: no pause, and the next failure starts from `first` again. */
  clear(): void;
  /** Try at the next step, keeping the pause it had (an operator's retry, a skip decision). */
  retryNow(): void;
  /** Whether a try is due now (always, while nothing failed). */
  due(now?: number): boolean;
  /** Whether the last try failed. */
  failing(): boolean;
};

export const createRetryBackoff = (pauses: { readonly first: number; readonly max: number }): RetryBackoff => {
  let failing = false;
  let delay = pauses.first;
  let at = 0;
  return {
    failed(sameCause) {
      delay = sameCause ? Math.min(delay * 2, pauses.max) : pauses.first;
      failing = true;
      at = Date.now() + delay;
    },
    clear() {
      failing = false;
      delay = pauses.first;
      at = 0;
    },
    retryNow() {
      at = 0;
    },
    due: (now = Date.now()) => now >= at,
    failing: () => failing,
  };
};
