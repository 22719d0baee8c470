import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allProjections } from '../../projections/allProjections.ts';

/**
 * Each read model declares the events it reads in its own file, where its `apply` is; the list of
 * read models names none. A read model without the list would let a stopped read model refuse
 * read-your-writes waits for events it never reads.
 */
test('every read model the server keeps declares the event types it reads', () => {
  const undeclared = allProjections()
    .filter((p) => p.eventTypes === undefined || p.eventTypes.length === 0)
    .map((p) => p.name);
  assert.equal(undeclared, []);
});

test('no two read models share a name (each has its own checkpoint)', () => {
  const names = allProjections().map((p) => p.name);
  assert.equal(names.length, new Set(names).size);
});

test.run();
