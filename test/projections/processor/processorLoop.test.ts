import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProcessorLoop } from '../../../projections/processor/processorLoop.ts';

/**
 * The loop's idle sleep (processorLoop.ts): an idle server stops asking its database ten times a
 * second, yet what this process appends (a wake) or a read-your-writes wait (`hurry`) is looked
 * at without the long sleep. Counts, not timings, are asserted: a loaded machine only makes timers
 * late, which gives fewer steps, never more.
 */
const stepsIn = async (ms: number, options: { maxIdleMs?: number; hurry?: () => boolean }) => {
  let steps = 0;
  const loop = createProcessorLoop({
    step: async () => {
      steps += 1;
      return 0;
    },
    idleMs: 10,
    ...options,
  });
  loop.start();
  await new Promise((resolve) => setTimeout(resolve, ms));
  await loop.stop();
  return steps;
};

test('given a log that stays quiet, the sleep doubles up to maxIdleMs instead of stepping every idleMs', async () => {
  // 10, 20, 40, 80, 80…: at most 4 + 1000/80 steps in a second, where a fixed 10 ms idle steps up to 100 times.
  const steps = await stepsIn(1000, { maxIdleMs: 80 });
  assert.ok(steps <= 18, `${steps} steps in a second`);
  assert.ok(steps >= 1);
});

test('given a long idle sleep, a wake steps at once and starts the sleeps again at idleMs', async () => {
  const at: number[] = [];
  const loop = createProcessorLoop({
    step: async () => {
      at.push(Date.now());
      return 0;
    },
    idleMs: 10,
    maxIdleMs: 60_000,
  });
  loop.start();
  // Past 10 + 20 + … the sleep is long: nothing steps for a while.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const before = at.length;
  const woken = Date.now();
  loop.wake();
  // The wake's step, then one after idleMs (10 ms), one after 20 ms…: well inside 5 s. Without
  // the restart the sleeps would go on from 2.5 s (2.5 + 5 s).
  for (const deadline = Date.now() + 5000; at.length < before + 3 && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 10));
  await loop.stop();
  assert.ok(at.length >= before + 3, `${at.length - before} steps after the wake`);
  assert.ok((at[before + 2] as number) - woken < 5000);
});

test('given someone waiting (hurry), an idle loop keeps stepping every idleMs', async () => {
  const hurried = await stepsIn(1000, { maxIdleMs: 60_000, hurry: () => true });
  const idle = await stepsIn(1000, { maxIdleMs: 60_000 });
  assert.ok(idle <= 10, `${idle} idle steps`);
  assert.ok(hurried > idle, `${hurried} hurried steps, ${idle} idle`);
});

test.run();
