import type { IngestBudget, IngestLease } from './ingestBudget.ts';

/** The same budget, telling `onRefused` once per request it refuses (a lease that could not grow or claim a slot). */
export const countBudgetRefusals = (budget: IngestBudget, onRefused: () => void): IngestBudget => {
  const counted = (lease: IngestLease): IngestLease => {
    let told = false;
    const note = (ok: boolean) => {
      if (!ok && !told) {
        told = true;
        onRefused();
      }
      return ok;
    };
    return { ...lease, grow: (bytes) => note(lease.grow(bytes)), claimSlot: () => note(lease.claimSlot()) };
  };
  return {
    get retryAfterSeconds() {
      return budget.retryAfterSeconds;
    },
    inFlight: () => budget.inFlight(),
    whenOpen: () => budget.whenOpen?.() ?? Promise.resolve(),
    open: () => counted(budget.open()),
    tryAcquire(bytes) {
      const lease = budget.tryAcquire(bytes);
      if (lease === null) onRefused();
      return lease;
    },
  };
};
