import { SingleBar } from 'cli-progress';
import { deriveAuditKey } from '../../domain/audit/auditKey.ts';
import { FINDINGS, verifyChain } from '../../domain/audit/verifyChain.ts';
import { positionToString, START } from '../../domain/eventstore/types.ts';
import { postgresChainReader } from '../../projections/audit/postgresChainReader.ts';
import { storeChainReader } from '../../projections/audit/storeChainReader.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/** Exit code when the log does not verify (2 is the CLI's usage/configuration error). */
export const EXIT_TAMPERED = 1;

/**
 * `loupe audit verify`: walks the whole log and its seals in global order, with a progress bar on
 * stderr, and exits 0 when the chain is intact; otherwise 1, naming the first bad position and
 * what is wrong there. It never seals: events newer than the newest seal are counted, not judged.
 */
export const run: CommandRun = async (config) => {
  const key = deriveAuditKey(config.audit.secret);
  const log = await openEventLog(config);
  try {
    const total = (await log.store.backlog(START, { cap: Number.MAX_SAFE_INTEGER })).events;
    const bar = new SingleBar({
      format: 'verifying {bar} {value}/{total} events | {rate} events/s',
      stream: process.stderr,
      hideCursor: true,
    });
    const started = performance.now();
    bar.start(total, 0, { rate: 0 });
    const reader = log.kind === 'sql' ? postgresChainReader(log.database.pool) : storeChainReader(log.database.pool, log.store);
    const report = await verifyChain(reader, key, (events) =>
      bar.update(events, { rate: Math.round(events / ((performance.now() - started) / 1000)) }),
    );
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`${report.events} events in ${seconds.toFixed(1)} s (${Math.round(report.events / seconds)} events/s)\n`);
    if (!key.keyed) process.stdout.write('note: no SERVICE_AUDIT_KEY or SERVICE_SECRET: the chain is unkeyed (see docs/AUDIT.md)\n');
    if (report.finding !== null) {
      const where = report.finding.position === null ? '' : ` at position ${positionToString(report.finding.position)}`;
      process.stdout.write(`TAMPERED: ${FINDINGS[report.finding.kind]}${where}: ${report.finding.detail}\n`);
      return EXIT_TAMPERED;
    }
    const head =
      report.head === null
        ? 'nothing sealed yet'
        : `head ${positionToString(report.head.position)} seal ${report.head.seal.toString('hex')}`;
    process.stdout.write(`intact: ${report.sealed} sealed events verified (${head}, key ${key.id})\n`);
    if (report.unsealed > 0) process.stdout.write(`${report.unsealed} newest event(s) not sealed yet\n`);
    for (const [removal, count] of report.erased) {
      process.stdout.write(`${count} event(s) erased by the removal record at position ${removal}\n`);
    }
    return 0;
  } finally {
    await log.close();
  }
};
