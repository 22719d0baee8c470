/**
 * SIGKILL durability check: `npm run check:sigkill [-- options]`.
 *
 *   --backend pglite|postgres|both   (default both)
 *   --rounds N                       kills per backend (default 3)
 *   --concurrency N                  senders (default 4)
 *   --batch N                        spans per request (default 512)
 *   --kill-after N                   acknowledged requests before each kill (default 20)
 *   --pg-url URL                     server for the scratch database
 *                                    (default postgres://postgres@127.0.0.1:5432/postgres)
 *
 * Exits 1 if any acknowledged span is missing after the restarts.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_PG_URL } from '../bench/scratchDatabase.ts';
import { runSigkillCheck, type SigkillReport } from './sigkillCheck.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    batch: { type: 'string', default: '512' },
    'kill-after': { type: 'string', default: '20' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
  },
});

const backends = args.backend === 'both' ? ['pglite', 'postgres'] : [args.backend!];
const guard = setTimeout(() => {
  console.error('[check:sigkill] giving up after 20 minutes');
  process.exit(2);
}, 20 * 60_000);
guard.unref();

const reports: SigkillReport[] = [];
for (const backend of backends) {
  if (backend !== 'pglite' && backend !== 'postgres') throw new Error('--backend must be pglite, postgres or both');
  const report = await runSigkillCheck({
    postgresServerUrl: backend === 'postgres' ? args['pg-url']! : null,
    rounds: Number(args.rounds),
    concurrency: Number(args.concurrency),
    batchSize: Number(args.batch),
    killAfterAcks: Number(args['kill-after']),
    log: (m) => process.stderr.write(`[check:sigkill ${backend}] ${m}\n`),
  });
  reports.push(report);
  const rounds = report.rounds.map(
    (r, i) => `round ${i + 1}: ${r.acknowledgedRequests} acked requests, ${r.unansweredRequests} cut off (${r.exit})`,
  );
  console.log(
    `${backend}: acknowledged ${report.acknowledgedSpans} spans, found ${report.foundSpans}, missing ${report.missingSpans}` +
      ` (+${report.unacknowledgedButStored} spans of cut-off requests stored anyway); projections ${report.lagAtRestart ?? '?'} events behind at the last restart; ${report.seconds.toFixed(0)} s\n  ${rounds.join('\n  ')}` +
      (report.missingSpans > 0 ? `\n  missing e.g. ${report.missingExamples.join(', ')}` : ''),
  );
}
process.exit(reports.every((r) => r.missingSpans === 0) ? 0 : 1);
