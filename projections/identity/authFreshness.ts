import type { Position } from '../../domain/eventstore/types.ts';
import { comparePosition } from '../../domain/eventstore/types.ts';

/** Where this process's in-memory auth state stands against the log. */
export type FreshnessSource = {
  /** Up to where the auth state has been fed (the projection runner's position). */
  readonly applied: () => Position;
  /** The runner's batches are failing: nothing more reaches the auth state until they pass. */
  readonly failing: () => boolean;
  /** The newest committed event, whoever appended it. */
  readonly head: () => Promise<Position>;
};

export type AuthFreshness = {
  /**
   * This process appended an event that changes who may authenticate (a revocation, logout, role
   * change, deletion) at `position`: until the auth state has it, credentials are confirmed on
   * their streams. Synchronous, so the very next request is judged that way.
   */
  readonly note: (position: Position | null) => void;
  /** Whether the auth state may be missing an event already appended (here or by another process). */
  readonly behind: () => Promise<boolean>;
  /** Called once the runner exists; until then the state counts as current. */
  readonly connect: (source: FreshnessSource) => void;
  /** Bumped by every `note`: lets callers drop what they cached from the streams before it. */
  readonly generation: () => number;
};

export type AuthFreshnessOptions = {
  readonly now?: () => number;
  /** How often to look at the log head (one indexed query) while requests come in. */
  readonly sampleEveryMs?: number;
  /**
   * How long the runner may take to reach a head it was shown before the state counts as behind:
   * above its idle poll (100 ms) and a busy batch, so a healthy runner never trips it.
   */
  readonly graceMs?: number;
};

/**
 * Tells the authenticator when the in-memory auth state can no longer be trusted on its own.
 * The state is fed by the projection runner after each batch commits, so a stuck or failing
 * projection (a poison event, a database hiccup) would otherwise freeze it: a deleted key or an
 * ended session would keep working for as long as the read models lag. While `behind()` says
 * so, the authenticator judges each credential on its own streams instead (one or two small
 * stream reads, see confirmCredential): that is correct across processes sharing the database,
 * since any process's append is in those streams the moment it commits, and it needs no fencing
 * between processes. Applying this process's own events straight into the state instead would
 * only cover this process, and out of order with the runner's replay.
 *
 * Behind means: the runner is failing; or it has not applied an event this process noted; or it
 * has not reached a head sampled more than `graceMs` ago (another process's append).
 */
export const createAuthFreshness = (options: AuthFreshnessOptions = {}): AuthFreshness => {
  const now = options.now ?? Date.now;
  const sampleEveryMs = options.sampleEveryMs ?? 250;
  const graceMs = options.graceMs ?? 1000;
  let source: FreshnessSource | null = null;
  let noted: Position | null = null;
  let generation = 0;
  let samples: Array<{ readonly at: number; readonly head: Position }> = [];
  let lastSampleAt = Number.NEGATIVE_INFINITY;
  let sampling: Promise<void> | null = null;

  const sample = (from: FreshnessSource): Promise<void> => {
    sampling ??= (async () => {
      try {
        const at = now();
        const head = await from.head();
        samples.push({ at, head });
        lastSampleAt = at;
      } catch {
        // No head (database away): judge on what we have; the runner is then failing too.
      } finally {
        sampling = null;
      }
    })();
    return sampling;
  };

  return {
    connect: (s) => {
      source = s;
    },
    generation: () => generation,
    note: (position) => {
      if (position === null) return;
      generation++;
      if (noted === null || comparePosition(position, noted) > 0) noted = position;
    },
    behind: async () => {
      if (source === null) return false;
      if (source.failing()) return true;
      if (noted !== null) {
        if (comparePosition(source.applied(), noted) < 0) return true;
        noted = null;
      }
      if (now() - lastSampleAt >= sampleEveryMs) await sample(source);
      const applied = source.applied();
      samples = samples.filter((s) => comparePosition(applied, s.head) < 0);
      // Keep the list short: only the oldest unreached sample decides, plus the newest.
      if (samples.length > 2) samples = [samples[0]!, samples[samples.length - 1]!];
      return samples.length > 0 && now() - samples[0]!.at > graceMs;
    },
  };
};
