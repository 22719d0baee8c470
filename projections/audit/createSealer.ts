import { sql, type CommonQueryMethods, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import type { AuditKey } from '../../domain/audit/auditKey.ts';
import { GENESIS_SEAL, nextSeal, sealParts } from '../../domain/audit/sealChain.ts';
import type { SealInputSource } from '../../domain/audit/sealInputSource.ts';
import { START } from '../../domain/eventstore/types.ts';
import type { SealRecord } from '../../domain/audit/sealRecord.ts';
import { insertCheckpoint, insertSeals, lastSeal, latestCheckpoint } from './sealStore.ts';

/** Advisory lock class of the sealing transaction: one sealer at a time across processes. */
const SEALER_LOCK = 7305024;

export type SealerOptions = {
  /** A pool, or a transaction (the sealing steps are then savepoints in it). */
  readonly pool: DatabasePool | DatabaseTransactionConnection;
  readonly key: AuditKey;
  /** The log's seal inputs, read on the sealing transaction's connection. */
  readonly source: (db: CommonQueryMethods) => SealInputSource;
  readonly maxEvents?: number;
  readonly maxBytes?: number;
};

export type SealStep = {
  /** Events sealed by this step (0: nothing new below the horizon). */
  readonly sealed: number;
  /** The newest seal after this step, null while the log is empty. */
  readonly head: SealRecord | null;
};

export class SealerRefusedError extends Error {
  readonly code = 'audit_sealer_refused';
}

/**
 * Seals the log's next events in global order: one transaction per batch that reads the newest
 * seal, hashes what follows it and appends the seals, under an advisory lock so that processes
 * sharing a database never interleave. It writes nothing to the log and is never on an append's
 * path: an acknowledgement never waits for it.
 *
 * It refuses to go on (rather than start a second chain) when the chain's newest checkpoint was
 * sealed under another key, or when checkpoints exist but the seals are gone.
 */
export const createSealer = (options: SealerOptions) => {
  const maxEvents = options.maxEvents ?? 2_000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;

  const step = async (checkpoint: 'if_sealed' | 'always' | 'never'): Promise<SealStep> =>
    options.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${SEALER_LOCK})`);
      const last = await lastSeal(tx);
      const mark = await latestCheckpoint(tx);
      if (mark !== null && mark.keyId !== options.key.id) {
        throw new SealerRefusedError(
          `the audit chain was sealed with key ${mark.keyId} and this process has key ${options.key.id} ` +
            '(set SERVICE_AUDIT_KEY to the secret the chain was sealed with); sealing stopped',
        );
      }
      if (last === null && mark !== null) {
        throw new SealerRefusedError(`audit checkpoints record ${mark.ordinal} sealed events but audit_seals is empty; sealing stopped`);
      }
      const inputs = await options.source(tx).read(last?.position ?? START, maxEvents, maxBytes);
      let previous = last?.seal ?? GENESIS_SEAL;
      let ordinal = last?.ordinal ?? 0n;
      const rows: SealRecord[] = inputs.map((e) => {
        const parts = sealParts(e);
        previous = nextSeal(options.key.key, previous, e.position, parts);
        ordinal += 1n;
        return { position: e.position, ordinal, eventId: e.id, ...parts, seal: previous };
      });
      await insertSeals(tx, rows);
      const head = rows.at(-1) ?? last;
      // The first seals always get a checkpoint: it records the key the chain is sealed with.
      if (head !== null && (checkpoint === 'always' || mark === null || (checkpoint === 'if_sealed' && rows.length > 0))) {
        if (mark === null || mark.ordinal !== head.ordinal) await insertCheckpoint(tx, head, options.key.id);
      }
      return { sealed: rows.length, head };
    });

  return {
    /** Seals one batch; records a checkpoint when asked to ('if_sealed': only when it sealed something). */
    step,
    /** Seals everything below the horizon now, then records a checkpoint (CLI commands, tests). */
    async catchUp(): Promise<SealStep> {
      let total = 0;
      for (;;) {
        const result = await step('never');
        total += result.sealed;
        if (result.sealed === 0) {
          const final = await step('always');
          return { sealed: total + final.sealed, head: final.head };
        }
      }
    },
  };
};

export type Sealer = ReturnType<typeof createSealer>;
