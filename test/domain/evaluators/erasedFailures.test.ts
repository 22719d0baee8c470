import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERASED_ERROR, isFailureOnErased, withoutFailureError } from '../../../domain/evaluators/erasedFailures.ts';
import type { EvaluationFailed } from '../../../domain/evaluators/events.ts';

const failure = (target: EvaluationFailed['data']['target'], targetId: string): EvaluationFailed['data'] => ({
  attachmentId: 1,
  evaluatorId: 2,
  version: 1,
  target,
  targetId,
  projectId: '0b0d0f00-0000-4000-8000-000000000001',
  error: 'cannot judge my secret',
  attempts: 1,
});
const erased = { spanIds: new Set(['s1']), traceIds: new Set(['t1']), sessionIds: new Set(['u1']) };

test('given an erasure of a span, a trace and a session, when failures are looked at, then those judging them are on it and no other', () => {
  assert.ok(isFailureOnErased(failure('SPAN', 's1'), erased));
  assert.ok(isFailureOnErased(failure('TRACE', 't1'), erased));
  assert.ok(isFailureOnErased(failure('SESSION', 'u1'), erased));
  assert.not.ok(isFailureOnErased(failure('SPAN', 's2'), erased));
  assert.not.ok(isFailureOnErased(failure('TRACE', 's1'), erased));
  assert.not.ok(isFailureOnErased(failure('RUN', 's1'), erased));
  assert.not.ok(isFailureOnErased(null, erased));
});

test('given a failure on an erased span, when rewritten, then only its error text goes', () =>
  assert.equal(withoutFailureError(failure('SPAN', 's1')), { ...failure('SPAN', 's1'), error: ERASED_ERROR }));

test.run();
