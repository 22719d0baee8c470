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
    // Not yet: see kurrentEventStore.ts removeContent.
    removesContent: false,
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

specific.run();
