import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { isEventOf, loupeEvent } from '../../domain/loupeEvent.ts';

const stored = (type: string, data: unknown): StoredEvent => ({
  id: 'e1',
  stream: 'apikey-k1',
  revision: 0,
  position: { tx: 7n, seq: 3n },
  type,
  schemaVersion: 1,
  data,
  metadata: { actor: 'system', requestId: null, time: '2026-01-01T00:00:00.000Z', causation: 'RevokeApiKey' },
});

test('given a stored event, loupeEvent gives what a decider sees: its type and data, no metadata or position', () => {
  const event = loupeEvent(stored('ApiKeyRevoked', { keyId: 'k1', at: '2026-01-01T00:00:00.000Z' }));
  assert.equal(event, { type: 'ApiKeyRevoked', data: { keyId: 'k1', at: '2026-01-01T00:00:00.000Z' } });
});

test('isEventOf says whether the type is one of those named, and narrows without losing the stored fields', () => {
  const event = stored('ApiKeyRevoked', { keyId: 'k1', at: '2026-01-01T00:00:00.000Z' });
  assert.ok(isEventOf(event, ['ApiKeyIssued', 'ApiKeyRevoked']));
  assert.not.ok(isEventOf(event, ['ApiKeyIssued']));
  assert.not.ok(isEventOf(stored('SomethingElse', {}), ['ApiKeyRevoked']));
  if (isEventOf(event, ['ApiKeyRevoked'])) {
    // Typed: `data.keyId` is a string here, and the position is still the stored one (tsc checks this file).
    const keyId: string = event.data.keyId;
    assert.is(keyId, 'k1');
    assert.is(event.position.seq, 3n);
  }
});

test('only type names of the union are accepted: tsc refuses a misspelt one (at run time it is a plain comparison)', () => {
  // @ts-expect-error 'NoSuchEvent' is not a Loupe event type
  assert.ok(isEventOf(stored('NoSuchEvent', {}), ['NoSuchEvent']));
});

test.run();
