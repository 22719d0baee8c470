import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import type { StoredEvent } from '../../domain/eventstore/types.ts';

/** What a reactor may look at while it decides: the read models (SELECTs only) and the time. */
export type ReactorContext = {
  readonly db: CommonQueryMethods;
  readonly now: Date;
};

/**
 * A process that reacts to events or to time by issuing commands: retention on a schedule,
 * erasure of deleted content, sealing the log. Read models turn events into rows; a reactor
 * turns them into new commands (appends, removals, writes). Each one runs in exactly one process
 * among replicas (the runner holds its lock) and keeps a checkpoint like a read model's.
 *
 * The decision (`react`, `schedule.react`) is separate from the doing (`issue`): a spec gives
 * events and checks the commands (test/support/reactorSpec.ts), without issuing them.
 *
 * Delivery is at least once: the runner issues a batch's commands, then moves the checkpoint. A
 * crash in between reacts to the same events again, so `issue` must be idempotent (appending an
 * event a decider refuses the second time, removing what is already removed).
 */
export type Reactor<Command> = {
  /** Unique among reactors; names its checkpoint row and its lock. */
  readonly name: string;
  /** A background job (below) says so; a reactor proper appends to the log through commands. */
  readonly kind?: 'reactor' | 'background-job';
  /**
   * The event types it reacts to: the runner reads only those (a filtered read of the log, same
   * global order). Absent: every event, in global order, in batches bounded by bytes (a sealer).
   */
  readonly eventTypes?: readonly string[];
  /**
   * Wait until every read model has applied a batch before reacting to it, so that `react` finds
   * the batch's effects in the read models. A stopped read model then holds the reactor back.
   */
  readonly afterReadModels?: boolean;
  /** Events after its checkpoint, in global order → the commands to issue, in order. */
  readonly react?: (events: readonly StoredEvent[], context: ReactorContext) => Promise<readonly Command[]>;
  /** Time → commands: run by the owner every `everyMs` (the last run is kept in the checkpoint row, so a restart does not run it early). */
  readonly schedule?: {
    readonly everyMs: number;
    readonly react: (context: ReactorContext) => Promise<readonly Command[]>;
  };
  /** Carries out one command. Idempotent (see above). A method, so a list can hold reactors of different commands. */
  issue(command: Command): Promise<void>;
  /**
   * Writes that must land exactly once with the checkpoint (a sealer's seals): called in the
   * transaction that moves the checkpoint past `events`, after the commands were issued.
   */
  readonly record?: (tx: DatabaseTransactionConnection, events: readonly StoredEvent[]) => Promise<void>;
};

export type AnyReactor = Reactor<unknown>;

/**
 * Background work that only writes tables (the audit sealer's seals, the cost job's repriced
 * spans): it appends nothing to the log and decides nothing about the domain, so its "commands"
 * are just the units of work it takes on (`issue` does the work). It runs on a lane of its own,
 * with a checkpoint, an error row and backoff, like any reactor, and is named for what it is.
 */
export type BackgroundJob<Work> = Reactor<Work> & { readonly kind: 'background-job' };
