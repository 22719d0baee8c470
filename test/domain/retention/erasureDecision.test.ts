import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../../domain/eventstore/types.ts';
import { type ErasedSpan, erasureCommands, needsRecordedCutoff } from '../../../domain/retention/erasureDecision.ts';

/** What erasure decides, given deletions and what the tracing read model noted they took. */
const deletion = (id: string, type: string, data: Record<string, unknown>, actor = 'user:1'): StoredEvent => ({
  id,
  stream: 'tracing-p',
  revision: 0,
  position: { tx: 1n, seq: BigInt(id.length) },
  type,
  schemaVersion: 1,
  data,
  metadata: { actor, requestId: 'r1', time: new Date(0).toISOString(), causation: null },
});
const took = (deletionEvent: string, source: string, span: string, trace: string, session: string | null = null): ErasedSpan => ({
  deletion_event: deletionEvent,
  source_event: source,
  span_id: span,
  trace_id: trace,
  session_id: session,
});
const nothingLeft = { tracesLeft: new Set<string>(), sessionsLeft: new Set<string>() };

test('given a user deleting a trace, then one erasure removing its spans from their events, with annotations on the trace and its session', () => {
  const commands = erasureCommands([deletion('d1', 'TraceDeleted', { projectId: 'p', traceId: 't' })], {
    work: [took('d1', 'e1', 's1', 't', 'sess'), took('d1', 'e2', 's2', 't', 'sess')],
    ...nothingLeft,
  });
  assert.equal(commands, [
    {
      deletions: [{ id: 'd1', type: 'TraceDeleted' }],
      actor: 'user:1',
      requestId: 'r1',
      kind: 'erasure',
      projectId: 'p',
      policyId: null,
      cutoff: null,
      spans: [
        { eventId: 'e1', spanIds: ['s1'] },
        { eventId: 'e2', spanIds: ['s2'] },
      ],
      targets: { spanIds: ['s1', 's2'], traceIds: ['t'], sessionIds: ['sess'] },
    },
  ]);
});

test('given a span deleted from a trace that keeps other spans, then the trace and session are not targets', () => {
  const [command] = erasureCommands([deletion('d1', 'SpanDeleted', { projectId: 'p' })], {
    work: [took('d1', 'e1', 's1', 't', 'sess')],
    tracesLeft: new Set(['t']),
    sessionsLeft: new Set(['sess']),
  });
  assert.equal(command!.targets, { spanIds: ['s1'], traceIds: [], sessionIds: [] });
});

test('given a deletion that took nothing, then no removal; a deleted session always removes its notes', () => {
  assert.equal(erasureCommands([deletion('d1', 'TraceDeleted', { projectId: 'p' })], { work: [], ...nothingLeft }), []);
  const [session] = erasureCommands([deletion('d2', 'SessionDeleted', { projectId: 'p', sessionId: 'sess' })], {
    work: [],
    ...nothingLeft,
  });
  assert.equal(session!.targets, { spanIds: [], traceIds: [], sessionIds: ['sess'] });
});

test("given one policy's consecutive deletions in one project, then one retention removal for them all; a user's stays apart", () => {
  const expired = (id: string) => deletion(id, 'TraceDeleted', { projectId: 'p' }, 'retention:7');
  const commands = erasureCommands([expired('d1'), expired('d22'), deletion('d333', 'TraceDeleted', { projectId: 'p' })], {
    work: [took('d1', 'e1', 's1', 't1'), took('d22', 'e1', 's2', 't2'), took('d333', 'e3', 's3', 't3')],
    ...nothingLeft,
  });
  assert.equal(
    commands.map((c) => [c.kind, c.policyId, c.deletions.map((d) => d.id), c.spans]),
    [
      ['retention', '7', ['d1', 'd22'], [{ eventId: 'e1', spanIds: ['s1', 's2'] }]],
      ['erasure', null, ['d333'], [{ eventId: 'e3', spanIds: ['s3'] }]],
    ],
  );
  assert.is(needsRecordedCutoff(commands[0]!), '7', 'TraceDeleted carries no cut-off: the run recorded it');
  assert.is(needsRecordedCutoff(commands[1]!), null);
});

test('given a TracesExpired, then retention with its own cut-off and policy', () => {
  const [command] = erasureCommands(
    [
      deletion(
        'd1',
        'TracesExpired',
        { projectId: 'p', policyId: 'default', startedBefore: '2026-01-01T00:00:00.000Z' },
        'retention:default',
      ),
    ],
    { work: [took('d1', 'e1', 's1', 't1')], ...nothingLeft },
  );
  assert.equal([command!.kind, command!.policyId, command!.cutoff], ['retention', 'default', '2026-01-01T00:00:00.000Z']);
  assert.is(needsRecordedCutoff(command!), null);
});

test.run();
