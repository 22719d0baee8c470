import { createProject, deleteProject, updateProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, type Harness } from './tracingHarness.ts';

const idOf = async (h: Harness, name: string) => {
  const s = await loadProject(h.store, name);
  if (s.status !== 'active') throw new Error('not active');
  return s.projectId;
};

/** A history with everything the projector does: ingest, duplicates, sessions across projects, every kind of deletion (an expiry too), a re-created project. */
export const writeHistory = async (h: Harness) => {
  await createProject(h.store, { name: 'alpha', description: 'a', gradientStartColor: '#000000' }, context);
  const traces = Array.from({ length: 12 }, () => newTraceId());
  for (let i = 0; i < 12; i++) {
    const root = spanRecord({
      traceId: traces[i]!,
      startTimeUnixNano: nanos('2024-01-01T00:00:00Z', BigInt(i) * 1_000_000_000n),
      endTimeUnixNano: nanos('2024-01-01T00:00:00Z', BigInt(i) * 1_000_000_000n + 500_000n),
      attributes: attrs({ 'session.id': `s${i % 3}`, 'input.value': `in ${i}`, 'output.value': `out ${i}` }),
    });
    const child = spanRecord({
      traceId: traces[i]!,
      parentId: root.spanId,
      spanKind: 'LLM',
      status: { code: i % 4 === 0 ? 'ERROR' : 'OK', message: '' },
      attributes: attrs({ 'llm.token_count.prompt': i, 'llm.token_count.completion': 2 * i, metadata: `{"i":${i}}` }),
    });
    const project = i % 2 === 0 ? 'alpha' : 'beta';
    await ingestSpans(h.store, [batch(project, i === 5 ? [root, child, root] : [root, child])], context);
    // a late span of an earlier trace, sent to the other project
    if (i > 2) await ingestSpans(h.store, [batch('beta', [spanRecord({ traceId: traces[i - 3]! })])], context);
    // a policy run, early in the log, after the late span of the trace it expires
    if (i === 4)
      await deleteTelemetry(
        h.store,
        'alpha',
        {
          type: 'ExpireTraces',
          projectId: await idOf(h, 'alpha'),
          policyId: 'default',
          startedBefore: '2024-01-02T00:00:00.000Z',
          maxTraces: null,
          traceIds: [traces[0]!],
        },
        context,
      );
  }
  await updateProject(h.store, 'alpha', { projectId: await idOf(h, 'alpha'), description: 'changed' }, context);
  const alpha = await idOf(h, 'alpha');
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteTraces', projectId: alpha, traceIds: [traces[0]!, traces[2]!] }, context);
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteSessions', projectId: alpha, sessionIds: ['s1'] }, context);
  await ingestSpans(h.store, [batch('gamma', [spanRecord({ traceId: newTraceId(), attributes: attrs({ 'session.id': 's0' }) })])], context);
  await deleteProject(h.store, 'gamma', { projectId: await idOf(h, 'gamma'), defaultProjectName: 'default' }, context);
  await ingestSpans(h.store, [batch('gamma', [spanRecord({ traceId: newTraceId() })])], context);
};
