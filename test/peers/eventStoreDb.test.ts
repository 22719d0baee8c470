import {
  BACKWARDS,
  END,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  DeadlineExceededError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  streamNameFilter,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startScavenge } from '../../domain/eventstore/kurrentScavenge.ts';
import { startEventStoreDb, type EventStoreDbStandIn } from './eventStoreDb.ts';

/**
 * The stand-in, driven by the official client exactly as the adapter drives it: these are the
 * server behaviours the adapter and its tests rely on.
 */
type Ctx = { server: EventStoreDbStandIn; client: KurrentDBClient };
const test = suite<Ctx>('EventStoreDB stand-in', {} as Ctx);
test.before.each(async (ctx) => {
  ctx.server = await startEventStoreDb();
  ctx.client = KurrentDBClient.connectionString(ctx.server.url.replace('esdb:', 'kurrentdb:'));
});
test.after.each(async (ctx) => {
  await ctx.client.dispose();
  await ctx.server.close();
});

const e = (type: string, data: Record<string, unknown> = {}) => jsonEvent({ type, data });
const collect = async (reading: AsyncIterable<ResolvedEvent>) => {
  const out: ResolvedEvent[] = [];
  for await (const r of reading) out.push(r);
  return out;
};
const rejects = async (work: Promise<unknown>, type: new (...args: never[]) => Error): Promise<Error> => {
  try {
    await work;
  } catch (error) {
    assert.instance(error, type, `${(error as Error).constructor.name}: ${(error as Error).message}`);
    return error as Error;
  }
  throw new Error(`expected ${type.name}`);
};

test('appends check the expected revision: any, no stream, stream exists, exact; a wrong one names the actual revision', async ({
  client,
}) => {
  await rejects(client.appendToStream('s', e('A'), { streamState: 'stream_exists' }), WrongExpectedVersionError);
  const first = await client.appendToStream('s', [e('A'), e('B')], { streamState: 'no_stream' });
  assert.is(first.nextExpectedRevision, 1n);
  const wrong = (await rejects(
    client.appendToStream('s', e('C'), { streamState: 'no_stream' }),
    WrongExpectedVersionError,
  )) as WrongExpectedVersionError;
  assert.is(wrong.actualState, 1n);
  const stale = (await rejects(
    client.appendToStream('s', e('C'), { streamState: 0n }),
    WrongExpectedVersionError,
  )) as WrongExpectedVersionError;
  assert.is(stale.actualState, 1n);
  await client.appendToStream('s', e('C'), { streamState: 1n });
  await client.appendToStream('s', e('D'), { streamState: 'stream_exists' });
  await client.appendToStream('s', e('E'), { streamState: 'any' });
  assert.equal(
    (await collect(client.readStream('s'))).map((r) => [r.event!.type, r.event!.revision]),
    [
      ['A', 0n],
      ['B', 1n],
      ['C', 2n],
      ['D', 3n],
      ['E', 4n],
    ],
  );
});

test('a retried append with the same event ids is written once', async ({ client }) => {
  const events = [e('A'), e('B')];
  await client.appendToStream('once', events, { streamState: 'no_stream' });
  const again = await client.appendToStream('once', events, { streamState: 'no_stream' });
  assert.is(again.nextExpectedRevision, 1n);
  assert.is((await collect(client.readStream('once'))).length, 2);
});

test('$all forwards from a position includes it, backwards from a position excludes it; streams backwards from the end', async ({
  client,
}) => {
  for (let i = 0; i < 5; i++) await client.appendToStream(`n-${i % 2}`, e('N', { i }), { streamState: 'any' });
  const all = await collect(client.readAll({ fromPosition: START, filter: excludeSystemEvents() }));
  assert.equal(
    all.map((r) => (r.event!.data as { i: number }).i),
    [0, 1, 2, 3, 4],
  );
  const third = all[2]!.event!.position!;
  assert.ok(all.every((r, i) => i === 0 || r.event!.position!.commit > all[i - 1]!.event!.position!.commit));
  assert.equal(
    (await collect(client.readAll({ fromPosition: third, maxCount: 2 }))).map((r) => (r.event!.data as { i: number }).i),
    [2, 3],
  );
  assert.equal(
    (await collect(client.readAll({ fromPosition: third, direction: BACKWARDS }))).map((r) => (r.event!.data as { i: number }).i),
    [1, 0],
  );
  assert.equal(
    (await collect(client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 }))).map(
      (r) => (r.event!.data as { i: number }).i,
    ),
    [4],
  );
  assert.equal(
    (await collect(client.readStream('n-0', { fromRevision: END, direction: BACKWARDS }))).map((r) => r.event!.revision),
    [2n, 1n, 0n],
  );
  assert.equal(
    (await collect(client.readStream('n-0', { fromRevision: 1n, direction: FORWARDS, maxCount: 1 }))).map((r) => r.event!.revision),
    [1n],
  );
  await rejects(collect(client.readStream('never-written')), StreamNotFoundError);
});

test('a filtered catch-up subscription to $all: the backlog, caught up, then live events, resuming after a position', async ({
  client,
}) => {
  await client.appendToStream('keep-1', e('K', { n: 1 }));
  await client.appendToStream('skip-1', e('S'));
  await client.appendToStream('keep-2', e('K', { n: 2 }));
  const seen: number[] = [];
  let caughtUp = false;
  const subscription = client.subscribeToAll({ fromPosition: START, filter: streamNameFilter({ prefixes: ['keep-'] }) });
  subscription.on('caughtUp', () => {
    caughtUp = true;
  });
  const done = (async () => {
    for await (const r of subscription) {
      seen.push((r.event!.data as { n: number }).n);
      if (seen.length === 3) break;
    }
  })();
  while (!caughtUp) await new Promise((r) => setTimeout(r, 20));
  assert.equal(seen, [1, 2]);
  await client.appendToStream('skip-2', e('S'));
  await client.appendToStream('keep-3', e('K', { n: 3 }));
  await done;
  assert.equal(seen, [1, 2, 3]);
  const [, second] = await collect(client.readAll({ fromPosition: START, filter: streamNameFilter({ prefixes: ['keep-'] }) }));
  const resumed = client.subscribeToAll({ fromPosition: second!.event!.position!, filter: streamNameFilter({ prefixes: ['keep-'] }) });
  for await (const r of resumed) {
    assert.is((r.event!.data as { n: number }).n, 3, 'a subscription from a position starts after it');
    break;
  }
});

test('stream metadata: $maxCount and $tb hide events from stream reads, $all keeps them until a scavenge', async ({ client }) => {
  await client.appendToStream('m', [e('A'), e('B'), e('C'), e('D')]);
  await client.setStreamMetadata('m', { maxCount: 3, truncateBefore: 2 });
  assert.equal(
    (await collect(client.readStream('m'))).map((r) => r.event!.type),
    ['C', 'D'],
  );
  const inAll = async () => (await collect(client.readAll({ filter: streamNameFilter({ prefixes: ['m'] }) }))).map((r) => r.event!.type);
  assert.equal(await inAll(), ['A', 'B', 'C', 'D']);
  await startScavenge(client);
  assert.equal(await inAll(), ['C', 'D']);
  const metadata = await client.getStreamMetadata('m');
  assert.is(metadata.metadata?.truncateBefore, 2);
});

test('$maxAge hides events older than it (set on the server clock)', async ({ server, client }) => {
  await client.appendToStream('aged', [e('Old')]);
  await new Promise((r) => setTimeout(r, 1100));
  await client.appendToStream('aged', [e('New')]);
  await client.setStreamMetadata('aged', { maxAge: 1 });
  assert.equal(
    (await collect(client.readStream('aged'))).map((r) => r.event!.type),
    ['New'],
  );
  assert.ok(
    server.log.records().some((r) => r.type === 'Old'),
    'still in the log until a scavenge',
  );
  await startScavenge(client);
  assert.not.ok(server.log.records().some((r) => r.type === 'Old'));
});

test('soft delete hides a stream and lets it continue; a tombstone ends it for good (stream-deleted)', async ({ client }) => {
  await client.appendToStream('soft', [e('A'), e('B')]);
  await client.deleteStream('soft', { expectedRevision: 1n });
  await rejects(collect(client.readStream('soft')), StreamNotFoundError);
  const again = await client.appendToStream('soft', e('C'));
  assert.is(again.nextExpectedRevision, 2n, 'revisions continue after a soft delete');
  assert.equal(
    (await collect(client.readStream('soft'))).map((r) => r.event!.type),
    ['C'],
  );
  await client.appendToStream('hard', e('A'));
  await rejects(client.deleteStream('hard', { expectedRevision: 5n }), WrongExpectedVersionError);
  await client.tombstoneStream('hard');
  await rejects(collect(client.readStream('hard')), StreamDeletedError);
  await rejects(client.appendToStream('hard', e('B')), StreamDeletedError);
  await rejects(client.tombstoneStream('hard'), StreamDeletedError);
});

test('stopped: calls fail UNAVAILABLE; held: a call with a deadline fails DEADLINE_EXCEEDED; restarted with a file: the log is kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loupe-esdb-'));
  const server = await startEventStoreDb({ file: join(dir, 'log.jsonl') });
  const client = KurrentDBClient.connectionString(server.url.replace('esdb:', 'kurrentdb:'));
  try {
    const written = await client.appendToStream('kept', [e('A'), e('B')]);
    server.hold();
    await rejects(client.appendToStream('kept', e('C'), { deadline: 300 }), DeadlineExceededError);
    server.release();
    await server.stop();
    await rejects(client.appendToStream('kept', e('D'), { deadline: 2000 }), UnavailableError);
    await server.start();
    const after = await client.appendToStream('kept', e('E'), { deadline: 10_000 });
    assert.ok(after.position!.commit > written.position!.commit, 'positions keep growing after a restart');
    const types = (await collect(client.readStream('kept'))).map((r) => r.event!.type);
    // C was held past its deadline: the server may still have written it, as a real one may.
    assert.equal(
      types.filter((t) => t !== 'C'),
      ['A', 'B', 'E'],
    );
  } finally {
    await client.dispose();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
