import type { StoredEvent } from '../eventstore/types.ts';

/** A period of the spans' time partitioning: [start, end) in ms since the epoch. */
export type Period = { readonly start: number; readonly end: number };

/**
 * Which periods of spans (the read model's time partitions, a week each) a retention run may
 * take whole, by dropping them, instead of deleting their rows one by one: those that ended at or
 * before the cut-off of every expiry applied together (their `startedBefore`). Every trace
 * started in such a period is past that cut-off. A run by count alone (no cut-off), or an event
 * whose cut-off is not a date (a crafted one), takes no period whole. The read model still drops
 * a period only when no span in it belongs to a trace that is left (another project's, one past
 * the run's budget): the log stays the truth, and a drop removes exactly the rows the deletion
 * would have.
 */
export const expiredPeriods = <P extends Period>(expiries: readonly StoredEvent[], periods: readonly P[]): P[] => {
  let cutoff = Number.POSITIVE_INFINITY;
  for (const e of expiries) {
    const startedBefore = e.type === 'TracesExpired' ? (e.data as { startedBefore?: unknown } | null)?.startedBefore : undefined;
    const at = typeof startedBefore === 'string' ? Date.parse(startedBefore) : Number.NaN;
    if (Number.isNaN(at)) return [];
    cutoff = Math.min(cutoff, at);
  }
  if (cutoff === Number.POSITIVE_INFINITY) return [];
  return periods.filter((p) => p.end <= cutoff);
};
