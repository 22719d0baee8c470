import type { CommonQueryMethods } from 'slonik';
import type { StoredEvent } from '../domain/eventstore/types.ts';

/**
 * An in-memory read model every process keeps (e.g. which users and keys are valid right now).
 * `load` fills it from the SQL read models at the runner's start position (one consistent
 * snapshot); from then on the runner hands it every event it reads, in global order, so each
 * process is up to date whichever process wrote the SQL rows.
 */
export type LiveModel = {
  readonly name: string;
  readonly load: (db: CommonQueryMethods) => Promise<void>;
  readonly apply: (events: readonly StoredEvent[]) => void;
  /** The read models whose tables `load` reads (feeding resumes at the earliest of their checkpoints); absent: all. */
  readonly loadsFrom?: readonly string[];
};
