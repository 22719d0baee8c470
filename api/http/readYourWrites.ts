import type { Position } from '../../domain/eventstore/types.ts';
import { type ProjectionRunner, ProjectionTimeoutError } from '../../projections/projectionRunner.ts';

/** What a command returns: its position, or a result carrying it (null: it appended nothing). */
export type Written = Position | null | { readonly position: Position | null };

export type WaitOptions = {
  /**
   * `answer` is for writes that are stored either way (Phoenix only queues them): a slow read
   * model must not become an error and a resend. Default `fail`: a 503 the client retries.
   */
  readonly whenSlow?: 'fail' | 'answer';
  /** How long to wait (the runner's default, 5 s, when left out). */
  readonly timeoutMs?: number;
};

/** Waits until the read models show what was written. */
export type Settle = (written: Written, options?: WaitOptions) => Promise<void>;

const positionOf = (written: Written): Position | null =>
  written !== null && typeof written === 'object' && 'position' in written ? written.position : (written as Position | null);

/**
 * Read-your-writes: wait until this process has applied a command's events (read models and the
 * in-memory auth state) before answering, so the caller's next request sees them. The REST kit
 * and the GraphQL context hand it to their handlers; nothing else waits on the runner by hand.
 */
export const readYourWrites =
  (runner: ProjectionRunner): Settle =>
  async (written, options) => {
    const position = positionOf(written);
    if (position === null) return;
    try {
      await runner.waitFor(position, options?.timeoutMs);
    } catch (error) {
      if (!(options?.whenSlow === 'answer' && error instanceof ProjectionTimeoutError)) throw error;
    }
  };
