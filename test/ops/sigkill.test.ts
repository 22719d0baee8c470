import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSigkillCheck } from '../../ops/crashcheck/sigkillCheck.ts';
import { serverUrl } from '../support/database.ts';

/**
 * Given `loupe serve` (a child process) under a sustained ingest from 4 concurrent exporters,
 * when it is killed with SIGKILL while requests are in flight and started again on the same
 * working dir / database, then every span whose export request was answered 200 comes back
 * through REST. Runs on the backend CI selected (embedded PGlite, or the Postgres of
 * SERVICE_SQL_DATABASE_URL). The full check with more rounds is `npm run check:sigkill`.
 */
test('no acknowledged span is lost when the server is killed with SIGKILL mid-ingest', async () => {
  const report = await runSigkillCheck({
    postgresServerUrl: serverUrl() ?? null,
    rounds: 1,
    concurrency: 4,
    batchSize: 128,
    textBytes: 512,
    killAfterAcks: 12,
    catchUpTimeoutMs: 30_000,
  });
  const round = report.rounds[0]!;
  assert.ok(round.exit.includes('SIGKILL'), `the server was killed (${round.exit})`);
  assert.ok(round.acknowledgedRequests >= 12, `requests were acknowledged before the kill (${round.acknowledgedRequests})`);
  assert.ok(round.unansweredRequests >= 1, 'requests were in flight when the server was killed');
  assert.is(report.missingSpans, 0, `missing acknowledged spans, e.g. ${report.missingExamples.join(', ')}`);
  assert.is(report.foundSpans, report.acknowledgedSpans);
});

test.run();
