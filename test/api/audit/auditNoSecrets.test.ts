import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { START } from '../../../domain/eventstore/types.ts';
import { loadConfig } from '../../../ops/config.ts';
import { openConfiguredDatabase } from '../../../ops/database/openConfiguredDatabase.ts';
import { authEnv, callAs, createKey, createUser, login } from '../../support/authClient.ts';
import { cliDatabase } from '../../support/cliDatabase.ts';
import { runCli } from '../../support/cliProcess.ts';
import { seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer } from '../../support/testServer.ts';

/**
 * A secret's value, an API key, a password and the session tokens are each sent once to a real
 * server; then every audit answer (every REST page, GraphQL with every field) and `loupe audit
 * export` are searched for them. The audit answers are searched for the hashes the log keeps of
 * passwords and keys too: an entry never carries one.
 */
test('no secret value, password, token or key in GET /v1/audit/events, GraphQL auditEvents or loupe audit export', async () => {
  const place = await cliDatabase();
  const env = { ...place.env, ...authEnv() };
  const dir = await mkdtemp(join(tmpdir(), 'loupe-audit-secrets-'));
  try {
    const database = await openConfiguredDatabase(loadConfig({ SERVICE_WORKING_DIR: '/nonexistent', ...env }));
    const server = await startTestServer({ env, database });
    const never: string[] = [env.SERVICE_SECRET!, env.SERVICE_ADMIN_SECRET!];
    const rest: string[] = [];
    const graphql: string[] = [];
    const hashes: string[] = [];
    try {
      const admin = await login(server, 'admin@localhost', 'admin');
      never.push(admin.access, admin.refresh);
      const userId = await createUser(server, admin, {
        email: 'ada@example.com',
        username: 'ada',
        role: 'MEMBER',
        password: 'Ada-first-password-1',
      });
      never.push('Ada-first-password-1');
      const changed = await callAs(server, 'PATCH', `/v1/users/${userId}`, { as: admin, json: { password: 'Ada-second-password-2' } });
      assert.is(changed.status, 200, JSON.stringify(changed.body));
      never.push('Ada-second-password-2');
      const ada = await login(server, 'ada@example.com', 'Ada-second-password-2');
      never.push(ada.access, ada.refresh);
      const userKey = await createKey(server, ada, 'user', 'ada laptop');
      const systemKey = await createKey(server, admin, 'system', 'ci');
      never.push(userKey.key, systemKey.key);
      assert.is((await callAs(server, 'DELETE', `/v1/system/api_keys/${systemKey.id}`, { as: admin })).status, 204);
      const put = await callAs(server, 'PUT', '/v1/secrets', {
        as: admin,
        json: { secrets: [{ key: 'OPENAI_API_KEY', value: 'sk-proj-AUDIT-value-never-shown-42' }] },
      });
      assert.is(put.status, 200, JSON.stringify(put.body));
      never.push('sk-proj-AUDIT-value-never-shown-42');
      await seed(server, 'shop', [spanRecord({ traceId: newTraceId() })]);

      for (const event of await server.store.readAll(START, 10_000)) {
        const data = event.data as { passwordHash?: string | null; keyHash?: string; upserted?: { value: { ciphertext: string } }[] };
        if (data.passwordHash) hashes.push(data.passwordHash);
        if (data.keyHash) hashes.push(data.keyHash);
        for (const u of data.upserted ?? []) hashes.push(u.value.ciphertext);
      }
      assert.ok(hashes.length >= 4, 'the log holds password and key hashes and a sealed value to look for');

      for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
        const reply = await callAs(server, 'GET', `/v1/audit/events?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          as: admin,
        });
        assert.is(reply.status, 200);
        rest.push(JSON.stringify(reply.body));
        cursor = reply.body.next_cursor;
      }
      const everyField = `query Audit($after: String) { auditEvents(first: 5, after: $after) {
        edges { cursor node { id kind position eventId time type requestId summary erasedBy
          actor { actor kind name userId } resource { type id name stream link } changes { field before after }
          ingestion { hourStart hourEnd exports spans firstPosition lastPosition lastTime } } }
        pageInfo { hasNextPage endCursor } } }`;
      for (let after: string | null = null, more = true; more; ) {
        const reply = await callAs(server, 'POST', '/graphql', { as: admin, json: { query: everyField, variables: { after } } });
        assert.is(reply.body.errors, undefined, JSON.stringify(reply.body.errors));
        graphql.push(JSON.stringify(reply.body));
        more = reply.body.data.auditEvents.pageInfo.hasNextPage;
        after = reply.body.data.auditEvents.pageInfo.endCursor;
      }
    } finally {
      await server.close();
      await database.close();
    }
    const answers = [...rest, ...graphql].join('\n');
    for (const what of [
      'UserCreated',
      'PasswordChanged',
      'ApiKeyIssued',
      'ApiKeyRevoked',
      'SecretsReplaced',
      'SessionStarted',
      'SpansIngested',
    ])
      assert.ok(answers.includes(`"${what}"`), `the answers list ${what}`);
    assert.ok(answers.includes('OPENAI_API_KEY'), "a secret's key name is shown");
    for (const value of [...never, ...hashes]) assert.not.ok(answers.includes(value), `an audit answer holds ${value.slice(0, 12)}…`);

    const file = join(dir, 'audit.jsonl');
    const exported = await runCli(env, ['audit', 'export', '--out', file]);
    assert.is(exported.code, 0, exported.stderr);
    const text = await readFile(file, 'utf8');
    assert.ok(text.includes('"SecretsReplaced"') && text.includes('"PasswordChanged"'));
    for (const value of never) assert.not.ok(text.includes(value), `the export holds ${value.slice(0, 12)}…`);
    for (const value of never) assert.not.ok(exported.stdout.includes(value) || exported.stderr.includes(value));
  } finally {
    await rm(dir, { recursive: true, force: true });
    await place.cleanup();
  }
});

test.run();
