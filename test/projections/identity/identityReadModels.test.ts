import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { AuthState } from '../../../projections/identity/authState.ts';
import { applyAuthEvent, createAuthState } from '../../../projections/identity/authState.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { START, type Position } from '../../../domain/eventstore/types.ts';
import { createAuthLiveModel } from '../../../projections/identity/authLiveModel.ts';
import { apiKeysProjection } from '../../../projections/apiKeys/apiKeysProjection.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { secretsProjection } from '../../../projections/secrets/secretsProjection.ts';
import { usersProjection } from '../../../projections/identity/usersProjection.ts';
import { authEnv, callAs, createKey, createUser, login } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/** A history touching every identity event: users, renames, role and password changes, sessions, keys, resets, deletions, secrets. */
const writeHistory = async (server: TestServer, adminSecret: string) => {
  const admin = { bearer: adminSecret };
  const ids: string[] = [];
  for (const n of [1, 2, 3])
    ids.push(await createUser(server, admin, { email: `h${n}@example.com`, username: `h${n}`, role: 'MEMBER', password: 'pw-h' }));
  const s1 = await login(server, 'h1@example.com', 'pw-h');
  await login(server, 'h2@example.com', 'pw-h');
  await callAs(server, 'POST', '/auth/refresh', { as: s1 });
  await createKey(server, await login(server, 'h2@example.com', 'pw-h'), 'user');
  const doomed = await createKey(server, await login(server, 'h3@example.com', 'pw-h'), 'user');
  await createKey(server, admin, 'system');
  const revoked = await createKey(server, admin, 'system');
  await callAs(server, 'DELETE', `/v1/system/api_keys/${revoked.id}`, { as: admin });
  await callAs(server, 'PATCH', `/v1/users/${ids[0]}`, { as: admin, json: { role: 'VIEWER', username: 'h1-renamed' } });
  await callAs(server, 'PATCH', `/v1/users/${ids[1]}`, { as: admin, json: { password: 'pw-new' } });
  await callAs(server, 'DELETE', `/v1/users/${ids[2]}`, { as: admin });
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: doomed.key } })).status, 401);
  await callAs(server, 'PUT', '/v1/secrets', {
    as: admin,
    json: {
      secrets: [
        { key: 'A', value: 'a' },
        { key: 'B', value: 'b' },
      ],
    },
  });
  await callAs(server, 'PUT', '/v1/secrets', {
    as: admin,
    json: {
      secrets: [
        { key: 'A', value: null },
        { key: 'B', value: 'b2' },
      ],
    },
  });
  for (let i = 0; i < 5; i++) await callAs(server, 'POST', '/auth/login', { json: { email: 'h2@example.com', password: 'wrong' } });
  await login(server, 'h1@example.com', 'pw-h');
};

const dump = async (server: TestServer, table: string): Promise<string[]> =>
  (await server.pool.any(sql.type(z.object({ row: z.string() }))`SELECT row_to_json(t)::text AS row FROM ${sql.identifier([table])} t`))
    .map((r) => r.row)
    .sort();

const comparable = (state: AuthState) => ({
  users: [...state.users.entries()].sort(),
  accessTokens: [...state.accessTokens.entries()].sort(),
  refreshTokens: [...state.refreshTokens.entries()].sort(),
  resetTokens: [...state.resetTokens.entries()].sort(),
  apiKeys: [...state.apiKeys.entries()].sort(),
  systemUserId: state.systemUserId,
});

test('identity read models rebuild row for row, and the auth state loaded from them equals the one folded from the log', async () => {
  const env = authEnv();
  const server = await startTestServer({ env });
  try {
    await writeHistory(server, env.SERVICE_ADMIN_SECRET);
    await server.runner.catchUp();
    for (const projection of [usersProjection, apiKeysProjection, secretsProjection]) {
      const before = await Promise.all(projection.tables.map((t) => dump(server, t)));
      await rebuildProjection(server.pool, server.store, projection, {
        batchSize: 7,
        storeInTransaction: (tx) => createPostgresEventStore(tx),
      });
      const after = await Promise.all(projection.tables.map((t) => dump(server, t)));
      assert.equal(after, before, `${projection.name} rebuilt`);
    }
    assert.is((await dump(server, 'users')).length, 4, 'system, admin and two of the three users');

    const loaded = createAuthLiveModel();
    await server.pool.transaction((tx) => loaded.model.load(tx));
    const folded = createAuthState();
    let after: Position = START;
    for (;;) {
      const batch = await server.store.readAll(after, 100);
      if (batch.length === 0) break;
      for (const e of batch) applyAuthEvent(folded, { type: e.type, data: e.data });
      after = batch[batch.length - 1]!.position;
    }
    assert.equal(comparable(loaded.state), comparable(folded));
    assert.ok(folded.accessTokens.size > 0 && folded.apiKeys.size === 2);
  } finally {
    await server.close();
  }
});

test.run();
