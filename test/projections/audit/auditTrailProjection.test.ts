import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { auditTrailProjection, ERASED_SUMMARY } from '../../../projections/audit/auditTrailProjection.ts';
import { type AuditFilter, listAuditEntries } from '../../../projections/audit/auditTrailQueries.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const ALL: AuditFilter = { actor: null, types: null, resource: null, from: null, to: null };
const everything = (db: Parameters<typeof listAuditEntries>[0]) => listAuditEntries(db, ALL, { cursor: null, limit: 100 });

const userCreated = {
  type: 'UserCreated',
  data: {
    userId: 'u1',
    username: 'ada',
    email: 'ada@example.com',
    role: 'MEMBER',
    authMethod: 'LOCAL',
    passwordHash: '$argon2id$v=19$m=1024,t=1,p=1$SECRETHASH',
    passwordNeedsReset: false,
    builtIn: null,
    oauth2ClientId: null,
    oauth2UserId: null,
    ldapUniqueId: null,
    at: '2024-02-01T00:00:00Z',
  },
};
const roleChanged = { type: 'RoleChanged', data: { userId: 'u1', role: 'ADMIN', previousRole: 'MEMBER', at: '2024-02-01T00:00:00Z' } };
const PROJECT = '11111111-1111-4111-8111-111111111111';
const projectCreated = {
  type: 'ProjectCreated',
  data: { projectId: PROJECT, name: 'shop', description: 'old words', gradientStartColor: '#000', gradientEndColor: '#fff' },
};
const projectUpdated = { type: 'ProjectUpdated', data: { projectId: PROJECT, description: 'new words' } };
const PROMPT = '22222222-2222-4222-8222-222222222222';
const promptEvents = [
  { type: 'PromptCreated', data: { promptId: PROMPT, name: 'greeter', description: null, metadata: {}, sourcePromptId: null } },
  { type: 'PromptVersionAdded', data: { promptId: PROMPT, versionId: 'v-a', version: {} } },
  { type: 'PromptVersionAdded', data: { promptId: PROMPT, versionId: 'v-b', version: {} } },
  { type: 'PromptTagSet', data: { promptId: PROMPT, name: 'production', versionId: 'v-a', description: null } },
  { type: 'PromptTagSet', data: { promptId: PROMPT, name: 'production', versionId: 'v-b', description: null } },
];
const secretsReplaced = {
  type: 'SecretsReplaced',
  data: {
    upserted: [{ key: 'OPENAI_API_KEY', value: { keyId: 'k1', iv: 'IVIVIV', ciphertext: 'CIPHERTEXT', tag: 'TAGTAG' } }],
    deleted: [],
    userId: 'u1',
    at: '2024-02-01T00:00:00Z',
  },
};
const spans = (n: number) => ({
  type: 'SpansIngested',
  data: { projectName: 'shop', projectId: PROJECT, resources: [{}], spans: Array.from({ length: n }, () => ({ resource: 0 })) },
});

test('an entry per event, told for a person: a role before → after, a description, a tag moved, a secret by its key name', () =>
  projectionSpec(auditTrailProjection)
    .given(
      inStream('user-u1', userCreated, roleChanged),
      inStream('project-shop', projectCreated, projectUpdated),
      inStream('prompt-greeter', ...promptEvents),
      inStream('secrets', secretsReplaced),
    )
    .then(
      async (db) => (await everything(db)).map((r) => [r.type, r.resourceType, r.resourceName, r.summary, r.changes]),
      [
        [
          'SecretsReplaced',
          'Secret',
          'OPENAI_API_KEY',
          'Secrets: set OPENAI_API_KEY',
          [{ field: 'secret OPENAI_API_KEY', before: null, after: '(value set)' }],
        ],
        [
          'PromptTagSet',
          'Prompt',
          'greeter',
          'Tag "production" moved from version 1 to version 2',
          [{ field: 'tag production', before: 'version 1', after: 'version 2' }],
        ],
        [
          'PromptTagSet',
          'Prompt',
          'greeter',
          'Tag "production" set on version 1',
          [{ field: 'tag production', before: null, after: 'version 1' }],
        ],
        ['PromptVersionAdded', 'Prompt', 'greeter', 'Prompt "greeter": version 2 saved', []],
        ['PromptVersionAdded', 'Prompt', 'greeter', 'Prompt "greeter": version 1 saved', []],
        ['PromptCreated', 'Prompt', 'greeter', 'Prompt "greeter" created', []],
        [
          'ProjectUpdated',
          'Project',
          'shop',
          'Project "shop" updated: description "old words" → "new words"',
          [{ field: 'description', before: 'old words', after: 'new words' }],
        ],
        ['ProjectCreated', 'Project', 'shop', 'Project "shop" created', []],
        ['RoleChanged', 'User', 'ada', 'Role MEMBER → ADMIN', [{ field: 'role', before: 'MEMBER', after: 'ADMIN' }]],
        ['UserCreated', 'User', 'ada', 'User "ada" created as MEMBER (LOCAL)', [{ field: 'role', before: null, after: 'MEMBER' }]],
      ],
    ));

test('no password hash or sealed secret value reaches an entry', () =>
  projectionSpec(auditTrailProjection)
    .given(inStream('user-u1', userCreated), inStream('secrets', secretsReplaced))
    .thenMatches(
      (db) => db.anyFirst(sql.unsafe`SELECT row_to_json(t)::text FROM audit_trail t`),
      (rows) => {
        const text = rows.join('\n');
        for (const value of ['SECRETHASH', 'argon2id', 'CIPHERTEXT', 'IVIVIV', 'TAGTAG']) assert.not.ok(text.includes(value), value);
      },
    ));

test('span ingestion is one entry per project, hour and actor: exports and spans summed, not listed', () =>
  projectionSpec(auditTrailProjection)
    .given(
      inStream('project-shop', projectCreated),
      inStream('spans-1', spans(2)),
      inStream('spans-2', spans(3)),
      inStream('spans-3', spans(1)),
    )
    .then(
      async (db) =>
        (await everything(db)).map((r) => [
          r.kind,
          r.type,
          r.resourceName,
          r.summary,
          r.ingestion && [r.ingestion.exports, r.ingestion.spans],
        ]),
      [
        ['ingestion', 'SpansIngested', 'shop', '6 spans in 3 exports to project "shop"', [3, 6]],
        ['event', 'ProjectCreated', 'shop', 'Project "shop" created', null],
      ],
    ));

test('a policy run’s TracesExpired is one entry for the project: how many traces, the policy by name and its rule, not the ids', () => {
  const traceIds = ['a1'.repeat(16), 'b2'.repeat(16), 'c3'.repeat(16)];
  return projectionSpec(auditTrailProjection)
    .given(
      inStream('project-shop', projectCreated),
      inStream('trace-retention-policies', {
        type: 'TraceRetentionPolicyCreated',
        data: { policyId: 1, name: 'week', maxDays: 7, maxTraces: 1000 },
      }),
      inStream(`tracing-${PROJECT}`, {
        type: 'TracesExpired',
        data: { projectId: PROJECT, policyId: '1', startedBefore: '2024-01-25T00:00:00.000Z', maxTraces: 1000, traceIds },
      }),
    )
    .thenMatches(
      async (db) => ({
        entries: (await everything(db)).filter((r) => r.type === 'TracesExpired').map((r) => [r.resourceType, r.resourceName, r.summary]),
        rows: await db.anyFirst(sql.unsafe`SELECT row_to_json(t)::text FROM audit_trail t WHERE type = 'TracesExpired'`),
      }),
      ({ entries, rows }) => {
        assert.equal(entries, [
          [
            'Project',
            'shop',
            '3 traces expired in project "shop" by retention policy "week" (started before 2024-01-25T00:00:00.000Z, beyond the newest 1000 traces)',
          ],
        ]);
        for (const id of traceIds) assert.not.ok(rows.join('').includes(id), 'no trace id in the entry');
      },
    );
});

test('an event whose content a removal took is shown as erased, pointing at the removal record', () =>
  projectionSpec(auditTrailProjection)
    .given(
      inStream('annotations-1', {
        type: 'AnnotationsRecorded',
        data: { source: 'API', annotations: [{ target: 'span', targetId: 'abc', name: 'correctness' }] },
      }),
    )
    .thenMatches(
      async (db) => {
        const recorded = (await everything(db)).find((r) => r.type === 'AnnotationsRecorded');
        // What the store's removal appends: the record lists the events it rewrote.
        await db.transaction((tx) =>
          auditTrailProjection.apply(tx, [
            {
              id: 'removal-1',
              stream: 'removals',
              revision: 0,
              position: { tx: 999n, seq: 999n },
              type: 'ContentRemoved',
              schemaVersion: 1,
              data: {
                kind: 'erasure',
                deletions: [],
                projectId: null,
                traceIds: [],
                spanIds: ['abc'],
                sessionIds: [],
                removed: { spans: 0, annotations: 1 },
                policyId: null,
                cutoff: null,
                erased: [{ id: recorded!.eventId, stream: 'annotations-1', position: recorded!.position }],
              },
              metadata: { actor: 'system', requestId: null, time: '2024-02-02T00:00:00Z', causation: null },
            },
          ]),
        );
        return everything(db);
      },
      (rows) => {
        assert.equal(
          rows.map((r) => [r.type, r.summary, r.erasedBy]),
          [
            ['ContentRemoved', 'Removed 0 spans and 1 annotation from 1 event (erasure of deleted telemetry)', null],
            ['AnnotationsRecorded', ERASED_SUMMARY, '999:999'],
          ],
        );
      },
    ));

test.run();
