import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { eventStoreContract } from './eventStoreContract.ts';

// The double the domain tests use must keep the same promises as the real store, or those tests
// prove nothing about the real one.
const test = eventStoreContract('in memory (test double)', async () => ({ store: memoryEventStore().store, close: async () => {} }));

test.run();
