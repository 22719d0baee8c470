import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKurrentEventStore } from '../../../domain/eventstore/kurrentEventStore.ts';
import { AppendTooLargeError, START } from '../../../domain/eventstore/types.ts';
import { startEventStoreDb } from '../../peers/eventStoreDb.ts';
import { ev, eventStoreContract } from './eventStoreContract.ts';

// The adapter through the official client against the stand-in that speaks EventStoreDB's gRPC API.
const test = eventStoreContract('EventStoreDB (stand-in)', async () => {
  const server = await startEventStoreDb({ maxAppendSize: 16 * 1024 * 1024 });
  const kurrent = createKurrentEventStore(server.url);
  return {
    store: kurrent.store,
    close: async () => {
      await kurrent.close();
      await server.close();
    },
  };
});

test.run();

const specific = suite('EventStoreDB adapter: what only it does');

specific('reclaimSpace scavenges: what stream metadata hides leaves the node, what it shows stays', async () => {
  const server = await startEventStoreDb();
  const kurrent = createKurrentEventStore(server.url);
  try {
    await kurrent.store.appendToStream('expiring', [ev('Old', { n: 1 }), ev('Old', { n: 2 }), ev('Kept', { n: 3 })], 'no_stream');
    await kurrent.client.setStreamMetadata('expiring', { truncateBefore: 2 });
    assert.equal(
      (await kurrent.store.readStream('expiring')).map((e) => e.type),
      ['Kept'],
    );
    assert.is(server.log.records().filter((r) => r.type === 'Old').length, 2, 'hidden, still on the node');
    await kurrent.store.reclaimSpace();
    assert.is(server.log.records().filter((r) => r.type === 'Old').length, 0);
    assert.equal(
      (await kurrent.store.readAll(START, 10)).map((e) => e.type),
      ['Kept'],
    );
  } finally {
    await kurrent.close();
    await server.close();
  }
});

specific("an append over the server's MaxAppendSize is refused as AppendTooLargeError, nothing written", async () => {
  const server = await startEventStoreDb({ maxAppendSize: 1024 });
  const kurrent = createKurrentEventStore(server.url);
  try {
    try {
      await kurrent.store.appendToStream('big', [ev('Big', { x: 'x'.repeat(2000) })], 'no_stream');
      assert.unreachable('over the limit');
    } catch (error) {
      assert.instance(error, AppendTooLargeError);
      assert.is((error as AppendTooLargeError).maxAppendSize, 1024);
    }
    assert.equal(await kurrent.store.readStream('big'), []);
  } finally {
    await kurrent.close();
    await server.close();
  }
});

specific('after a removal, reclaimSpace leaves no removed content on the node; readers still see every event at its position', async () => {
  const server = await startEventStoreDb();
  const kurrent = createKurrentEventStore(server.url);
  try {
    const { store } = kurrent;
    await store.appendToStream(
      'request-1',
      [ev('Batch', { keep: 'k', secret: 'canary-1' }), ev('Batch', { keep: 'sibling' })],
      'no_stream',
    );
    await store.appendToStream('request-2', [ev('Batch', { keep: 'later', secret: 'canary-2' })], 'no_stream');
    const before = await store.readAll(START, 100);
    const rewrite = (e: { data: unknown }) => {
      const { secret, ...rest } = e.data as Record<string, unknown>;
      return secret === undefined ? undefined : rest;
    };
    await store.removeContent({ record: ev('ContentRemoved', { kind: 'erasure' }), eventIds: before.map((e) => e.id), rewrite });
    // Removed again (a second survivors copy supersedes the first): still one copy per event after the scavenge.
    await store.removeContent({ record: ev('ContentRemoved', { kind: 'erasure' }), eventIds: [before[0]!.id], rewrite: () => null });
    const raw = () =>
      server.log
        .records()
        .map((r) => r.data.toString('utf8'))
        .join('\n');
    assert.match(raw(), /canary-1/, "hidden, still in the node's files until a scavenge");
    await store.reclaimSpace();
    assert.not.match(raw(), /canary/);
    assert.is(server.log.records().filter((r) => r.stream === `loupe-copy-${before[0]!.id}`).length, 1, 'superseded copies go too');
    const after = (await store.readAll(START, 100)).filter((e) => e.stream !== 'removals');
    assert.equal(
      after.map((e) => [e.id, e.stream, e.revision, e.position, e.data]),
      [
        [before[0]!.id, 'request-1', 0, before[0]!.position, {}],
        [before[1]!.id, 'request-1', 1, before[1]!.position, { keep: 'sibling' }],
        [before[2]!.id, 'request-2', 0, before[2]!.position, { keep: 'later' }],
      ],
    );
    assert.is(after[1]!.erased, undefined, 'a sibling copied verbatim is not erased');
    assert.equal(
      (await store.readStream('request-1')).map((e) => e.revision),
      [0, 1],
    );
    await store.appendToStream('request-1', [ev('Batch', { more: true })], 1);
    assert.equal(
      (await store.readStream('request-1')).map((e) => e.revision),
      [0, 1, 2],
      'the stream goes on at the next revision',
    );
  } finally {
    await kurrent.close();
    await server.close();
  }
});

specific.run();
