import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { auditTrailProjection } from '../../../projections/audit/auditTrailProjection.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { freshMigratedDatabase } from '../../support/database.ts';

const meta = (actor: string, requestId: string | null) => ({ actor, requestId, time: '2024-02-01T10:15:00Z', causation: null });
const PROJECT = '11111111-1111-4111-8111-111111111111';

/**
 * The audit trail rebuilt from the log equals the one kept live, after a removal too: live, the
 * removal record marks the events it rewrote; rebuilt, those events arrive already marked.
 */
test('a rebuilt audit trail equals the live one, erased events and summed ingestion included', async () => {
  const db = await freshMigratedDatabase();
  try {
    const store = createPostgresEventStore(db.pool);
    await store.appendToStream(
      'project-shop',
      [
        {
          type: 'ProjectCreated',
          data: { projectId: PROJECT, name: 'shop', description: null, gradientStartColor: '#000', gradientEndColor: '#fff' },
          metadata: meta('system', null),
        },
      ],
      'any',
    );
    await store.appendToStream(
      'user-u1',
      [
        {
          type: 'UserCreated',
          data: {
            userId: 'u1',
            username: 'ada',
            email: null,
            role: 'MEMBER',
            authMethod: 'LOCAL',
            passwordHash: null,
            passwordNeedsReset: false,
            builtIn: null,
            oauth2ClientId: null,
            oauth2UserId: null,
            ldapUniqueId: null,
            at: '2024-02-01T10:00:00Z',
          },
          metadata: meta('system', 'r1'),
        },
        {
          type: 'RoleChanged',
          data: { userId: 'u1', role: 'ADMIN', previousRole: 'MEMBER', at: '2024-02-01T10:00:00Z' },
          metadata: meta('user:u1', 'r2'),
        },
      ],
      'any',
    );
    const spans = (n: number) => ({
      projectName: 'shop',
      projectId: PROJECT,
      resources: [{}],
      spans: Array.from({ length: n }, (_, i) => ({ resource: 0, spanId: `s${n}-${i}` })),
    });
    const { position: first } = await store.appendToStream(
      'spans-1',
      [{ type: 'SpansIngested', data: spans(2), metadata: meta('apikey:k1', 'r3') }],
      'no_stream',
    );
    await store.appendToStream('spans-2', [{ type: 'SpansIngested', data: spans(3), metadata: meta('apikey:k1', 'r4') }], 'no_stream');
    await store.appendToStream(
      'annotations-1',
      [
        {
          type: 'AnnotationsRecorded',
          data: { source: 'API', annotations: [{ target: 'span', targetId: 's2-0', name: 'correctness' }] },
          metadata: meta('user:u1', 'r5'),
        },
      ],
      'no_stream',
    );
    const runner = createProjectionRunner({ store, pool: db.pool, projections: [auditTrailProjection] });
    await runner.catchUp();
    const [annotations] = await store.readStream('annotations-1');
    const [batch] = await store.readStream('spans-1');
    assert.equal(batch!.position, first);
    await store.removeContent({
      record: {
        type: 'ContentRemoved',
        data: {
          kind: 'erasure',
          deletions: [],
          projectId: PROJECT,
          traceIds: [],
          spanIds: ['s2-0'],
          sessionIds: [],
          removed: { spans: 1, annotations: 1 },
          policyId: null,
          cutoff: null,
        },
        metadata: meta('system', null),
      },
      eventIds: [annotations!.id, batch!.id],
      rewrite: (e) =>
        e.type === 'SpansIngested'
          ? {
              ...(e.data as object),
              spans: [(e.data as { spans: unknown[] }).spans[1]],
              erased: [{ at: 0, traceId: 't', sessionId: null }],
            }
          : null,
    });
    await runner.catchUp();
    const dump = async () => ({
      trail: await db.pool.anyFirst(sql.unsafe`SELECT row_to_json(t)::text FROM audit_trail t ORDER BY id`),
      subjects: await db.pool.anyFirst(sql.unsafe`SELECT row_to_json(s)::text FROM audit_subjects s ORDER BY key`),
    });
    const live = await dump();
    const text = live.trail.join('\n');
    assert.match(text, /"type":"AnnotationsRecorded".*"erased_by":"\d+:\d+"/);
    assert.match(text, /"kind":"ingestion".*"exports":2,"spans":5/);
    await rebuildProjection(db.pool, store, auditTrailProjection, {
      batchSize: 3,
      storeInTransaction: (tx) => createPostgresEventStore(tx),
    });
    assert.equal(await dump(), live);
  } finally {
    await db.close();
  }
});

test.run();
