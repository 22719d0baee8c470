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
