import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../ops/config.ts';
import { openEventLog } from '../../ops/openEventLog.ts';
import { cliDatabase } from '../support/cliDatabase.ts';
import { runCli } from '../support/cliProcess.ts';

const run = (env: Record<string, string>, ...args: string[]) => runCli(env, args);

let env: Record<string, string>;
let cleanup: () => Promise<void>;

test.before(async () => {
  ({ env, cleanup } = await cliDatabase());
});
test.after(async () => {
  await cleanup();
});

test('db migrate applies the migrations once, then reports the database up to date', async () => {
  const first = await run(env, 'db', 'migrate');
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /eventstore\/0001_events/);
  const second = await run(env, 'db', 'migrate');
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, /up to date/);
});

test('events export writes the raw log as JSON lines, filtered by stream, type and time', async () => {
  const log = await openEventLog(loadConfig(env));
  const meta = (time: string) => ({ actor: 'user:7', requestId: 'r1', time, causation: 'Test' });
  try {
    await log.store.appendToStream(
      'audit-a',
      [{ type: 'Opened', data: { n: 1 }, metadata: meta('2026-01-01T00:00:00.000Z') }],
      'no_stream',
    );
    await log.store.appendToStream(
      'audit-b',
      [{ type: 'Opened', data: { n: 2 }, metadata: meta('2026-02-01T00:00:00.000Z') }],
      'no_stream',
    );
    await log.store.appendToStream('audit-a', [{ type: 'Closed', data: { n: 3 }, metadata: meta('2026-03-01T00:00:00.000Z') }], 0);
  } finally {
    await log.close();
  }
  const all = await run(env, 'events', 'export');
  assert.is(all.code, 0, all.stderr);
  const lines = all.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(
    lines.map((l) => l.data.n),
    [1, 2, 3],
  );
  assert.equal(lines[0].metadata, meta('2026-01-01T00:00:00.000Z'));
  assert.ok(lines.every((l) => typeof l.id === 'string' && /^\d+:\d+$/.test(l.position)));
  const byStream = await run(env, 'events', 'export', '--stream', 'audit-a');
  assert.equal(
    byStream.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).data.n),
    [1, 3],
  );
  const byType = await run(env, 'events', 'export', '--type', 'Opened', '--from', '2026-01-15');
  assert.equal(
    byType.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).data.n),
    [2],
  );
  // A type in the log is exported whatever it is; one that matches nothing and Loupe never writes is a typo: exit 2, named.
  const typo = await run(env, 'events', 'export', '--type', 'SpanIngested');
  assert.is(typo.code, 2, typo.stderr);
  assert.match(typo.stderr, 'no event of type "SpanIngested", and it is not a type Loupe writes (did you mean SpansIngested');
  assert.is(typo.stdout, '');
  const none = await run(env, 'events', 'export', '--type', 'SpansIngested');
  assert.equal([none.code, none.stdout], [0, ''], 'a real type with no events yet is an empty export');
});

test('projections status lists every read model with its lag; rebuild replays and reports', async () => {
  const status = await run(env, 'projections', 'status');
  assert.is(status.code, 0, status.stderr);
  assert.match(status.stdout, /log head \d+:\d+/);
  // Each read model says how far behind it is in events and in seconds (the age of the oldest event it has not applied).
  assert.match(status.stdout, /projection\s+position\s+lag\s+behind\s+updated/);
  assert.match(status.stdout, /\ntracing\s+\d+:\d+\s+\d+\s+\d+\.\d s\s/);
  const rebuild = await run(env, 'projections', 'rebuild');
  assert.is(rebuild.code, 0, rebuild.stderr);
  const unknown = await run(env, 'projections', 'rebuild', 'no-such-model');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown projection "no-such-model"/);
});

test.run();
