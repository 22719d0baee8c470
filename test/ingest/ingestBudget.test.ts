import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createIngestBudget } from '../../ingest/ingestBudget.ts';

const test = suite('ingest budget: bounded in-flight requests and bytes');

test('refuses past the request count and past the bytes, and frees on release', () => {
  const budget = createIngestBudget({ maxInFlightRequests: 2, maxInFlightBytes: 100 });
  const a = budget.tryAcquire(60)!;
  assert.ok(a);
  assert.is(budget.tryAcquire(50), null, 'bytes');
  const b = budget.tryAcquire(40)!;
  assert.ok(b);
  assert.is(budget.tryAcquire(0), null, 'count');
  a.release();
  a.release();
  assert.equal(budget.inFlight(), { requests: 1, bytes: 40 });
  b.release();
  assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
});

test('a lone request may exceed the byte budget, so a large request is never refused forever', () => {
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 10 });
  const lone = budget.tryAcquire(500)!;
  assert.ok(lone);
  assert.ok(lone.grow(800));
  assert.is(budget.tryAcquire(1), null);
  lone.release();
  assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
});

test('grow raises a reservation only within the budget', () => {
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 100, retryAfterSeconds: 5 });
  const a = budget.tryAcquire(10)!;
  const b = budget.tryAcquire(10)!;
  assert.ok(a.grow(50));
  assert.ok(a.grow(20), 'shrinking is a no-op');
  assert.not.ok(b.grow(60));
  assert.equal(budget.inFlight(), { requests: 2, bytes: 60 });
  a.release();
  b.release();
  assert.not.ok(a.grow(1), 'a released lease cannot grow');
  assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
  assert.is(budget.retryAfterSeconds, 5);
});

test.run();

const lease = suite('ingest budget leases: bytes as they arrive, a slot once the body is in');

lease('an open lease holds nothing until it grows, and claims a slot only when asked', () => {
  const budget = createIngestBudget({ maxInFlightRequests: 1, maxInFlightBytes: 100 });
  const reading = [budget.open(), budget.open(), budget.open()];
  assert.ok(
    reading.every((l) => l.grow(20)),
    'bodies being read take no request slot',
  );
  assert.equal(budget.inFlight(), { requests: 0, bytes: 60 });
  assert.ok(reading[0]!.claimSlot());
  assert.ok(reading[0]!.claimSlot(), 'claiming again is a no-op');
  assert.not.ok(reading[1]!.claimSlot(), 'one slot only');
  assert.not.ok(reading[1]!.grow(61), 'bytes are still bounded');
  reading[0]!.release();
  assert.ok(reading[1]!.claimSlot());
  for (const l of reading) l.release();
  assert.equal(budget.inFlight(), { requests: 0, bytes: 0 });
});

lease('shrinkTo gives back a worst case reserved up front', () => {
  const budget = createIngestBudget({ maxInFlightRequests: 4, maxInFlightBytes: 100 });
  const a = budget.open();
  assert.ok(a.grow(90));
  assert.not.ok(budget.open().grow(20));
  a.shrinkTo(10);
  a.shrinkTo(50);
  assert.is(a.held(), 10, 'shrinkTo never grows');
  assert.ok(budget.open().grow(20));
  a.release();
  a.shrinkTo(0);
  assert.equal(budget.inFlight(), { requests: 0, bytes: 20 });
});

lease.run();
