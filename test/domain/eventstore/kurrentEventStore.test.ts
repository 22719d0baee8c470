import { createKurrentEventStore } from '../../../domain/eventstore/kurrentEventStore.ts';
import { startEventStoreDb } from '../../peers/eventStoreDb.ts';
import { eventStoreContract } from './eventStoreContract.ts';

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
