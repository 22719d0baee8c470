import { sql, type CommonQueryMethods, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { deriveAuditKey, type AuditKey } from '../../../domain/audit/auditKey.ts';
import { createPostgresSealInputs } from '../../../domain/eventstore/postgresSealInputs.ts';
import { verifyChain, type VerifyReport } from '../../../domain/audit/verifyChain.ts';
import type { EventStore } from '../../../domain/eventstore/types.ts';
import { createSealer } from '../../../projections/audit/createSealer.ts';
import { postgresChainReader } from '../../../projections/audit/postgresChainReader.ts';
import { rawSql } from '../../../projections/migrate.ts';

export const TEST_AUDIT_KEY: AuditKey = deriveAuditKey('audit-test-secret-0123456789abcdefghij');

const meta = (actor: string) => ({ actor, requestId: 'req-1', time: new Date(Date.UTC(2026, 0, 1)).toISOString(), causation: null });

/** `count` events over a few streams, as a log holds them: several per transaction, varied types. */
export const appendSampleEvents = async (store: EventStore, count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    await store.appendToStream(
      `sample-${i % 5}`,
      [{ type: i % 2 ? 'SampleNoted' : 'SampleChanged', data: { n: i, text: `é ${i}` }, metadata: meta(`user-${i % 3}`) }],
      'any',
    );
  }
};

const unreadable = z.object({ n: z.number() });

/** Seals until every event is sealed (another database's transaction on a shared server can hold the horizon back a moment). */
export const sealEverything = async (pool: DatabasePool | DatabaseTransactionConnection, key: AuditKey = TEST_AUDIT_KEY): Promise<void> => {
  const sealer = createSealer({ pool, key, source: createPostgresSealInputs });
  for (let attempt = 0; attempt < 400; attempt++) {
    await sealer.catchUp();
    const left = await pool.oneFirst(sql.type(unreadable)`
      SELECT count(*)::int AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM audit_seals s WHERE s.seq = e.global_position)`);
    if (left === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('events stayed unsealed');
};

export const verify = (db: CommonQueryMethods, key: AuditKey = TEST_AUDIT_KEY): Promise<VerifyReport> =>
  verifyChain(postgresChainReader(db), key);

class RolledBack extends Error {}

/**
 * Tampers as the database's superuser with the append-only triggers off (what someone with
 * database access can do), verifies inside the same transaction, then rolls it all back, so that
 * one sealed log serves every case.
 */
export const verifyTampered = async (
  pool: DatabasePool,
  statements: readonly string[],
  then: (tx: DatabaseTransactionConnection) => Promise<VerifyReport> = (tx) => verify(tx),
): Promise<VerifyReport> => {
  let report: VerifyReport | undefined;
  await pool
    .transaction(async (tx) => {
      await tx.query(sql.unsafe`SET LOCAL session_replication_role = replica`);
      for (const statement of statements) await tx.query(rawSql(statement));
      report = await then(tx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return report!;
};
