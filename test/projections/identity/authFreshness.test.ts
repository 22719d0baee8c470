import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Position } from '../../../domain/eventstore/types.ts';
import { createAuthFreshness } from '../../../projections/identity/authFreshness.ts';

const at = (seq: number): Position => ({ tx: 1n, seq: BigInt(seq) });

/** A runner and a log head under the test's control, on a clock it moves. */
const world = () => {
  const w = { clock: 0, applied: at(0), head: at(0), failing: false, headReads: 0 };
  const freshness = createAuthFreshness({ now: () => w.clock, sampleEveryMs: 250, graceMs: 1000 });
  freshness.connect({
    applied: () => w.applied,
    failing: () => w.failing,
    head: async () => {
      w.headReads++;
      return w.head;
    },
  });
  return { w, freshness };
};

test('given a runner that keeps up, the state is current', async () => {
  const { w, freshness } = world();
  assert.is(await freshness.behind(), false);
  w.head = at(5);
  w.clock = 100;
  w.applied = at(5);
  w.clock = 2000;
  assert.is(await freshness.behind(), false);
});

test('given an event this process appended, the state is behind until the runner has applied it', async () => {
  const { w, freshness } = world();
  const before = freshness.generation();
  freshness.note(at(7));
  assert.ok(freshness.generation() > before, 'cached confirmations are dropped');
  assert.is(await freshness.behind(), true, 'at once, with no time passing');
  w.applied = at(7);
  assert.is(await freshness.behind(), false);
});

test("given another process's append, the state counts as behind once the runner has not reached it for the grace period", async () => {
  const { w, freshness } = world();
  w.head = at(3);
  assert.is(await freshness.behind(), false, 'just seen: the runner gets its grace');
  w.clock = 900;
  assert.is(await freshness.behind(), false);
  w.clock = 1100;
  assert.is(await freshness.behind(), true);
  w.applied = at(3);
  assert.is(await freshness.behind(), false, 'reached: current again');
});

test('given a failing runner, the state is behind', async () => {
  const { w, freshness } = world();
  w.failing = true;
  assert.is(await freshness.behind(), true);
});

test('the head is read at most once per sampling period however many requests ask', async () => {
  const { w, freshness } = world();
  await Promise.all(Array.from({ length: 50 }, () => freshness.behind()));
  w.clock = 100;
  await freshness.behind();
  assert.is(w.headReads, 1);
  w.clock = 300;
  await freshness.behind();
  assert.is(w.headReads, 2);
});

test('before the runner is connected, the state counts as current', async () => {
  const freshness = createAuthFreshness();
  freshness.note(at(1));
  assert.is(await freshness.behind(), false);
});

test.run();
