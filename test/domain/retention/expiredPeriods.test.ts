import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../../domain/eventstore/types.ts';
import { expiredPeriods } from '../../../domain/retention/expiredPeriods.ts';

/** Which whole periods of spans a retention run takes (the read model drops their partitions). */
const expired = (startedBefore: unknown, type = 'TracesExpired'): StoredEvent => ({
  id: `e${String(startedBefore)}`,
  stream: 'tracing-p',
  revision: 0,
  position: { tx: 1n, seq: 1n },
  type,
  schemaVersion: 1,
  data: { projectId: 'p', policyId: 'default', startedBefore, maxTraces: null, traceIds: ['t'] },
  metadata: { actor: 'retention:default', requestId: null, time: new Date(0).toISOString(), causation: null },
});
const day = (d: number) => Date.UTC(2026, 10, d);
const weeks = [
  { start: day(2), end: day(9) },
  { start: day(9), end: day(16) },
  { start: day(16), end: day(23) },
];

test('given a run by age, then the periods that ended by its cut-off are taken whole, not the one it falls in', () => {
  assert.equal(expiredPeriods([expired(new Date(day(17)).toISOString())], weeks), weeks.slice(0, 2));
  assert.equal(expiredPeriods([expired(new Date(day(16)).toISOString())], weeks), weeks.slice(0, 2), 'a period ending at the cut-off');
});

test('given runs of several policies applied together, then the earliest cut-off decides', () => {
  assert.equal(
    expiredPeriods([expired(new Date(day(20)).toISOString()), expired(new Date(day(10)).toISOString())], weeks),
    weeks.slice(0, 1),
  );
});

test('given a run by count alone, a crafted cut-off or another deletion, then no period is taken whole', () => {
  assert.equal(expiredPeriods([expired(null)], weeks), []);
  assert.equal(expiredPeriods([expired('next tuesday')], weeks), []);
  assert.equal(expiredPeriods([expired(new Date(day(30)).toISOString()), expired(42)], weeks), []);
  assert.equal(expiredPeriods([expired(new Date(day(30)).toISOString(), 'TraceDeleted')], weeks), []);
  assert.equal(expiredPeriods([], weeks), []);
});

test.run();
