import { sql } from 'slonik';
import { START } from '../../domain/eventstore/types.ts';
import { z } from 'zod';
import { loadConfig } from '../../ops/config.ts';
import { openConfiguredDatabase } from '../../ops/database/openConfiguredDatabase.ts';
import type { Database } from '../../ops/database/openDatabase.ts';
import { authEnv, callAs, createKey, createUser } from '../support/authClient.ts';
import { cliDatabase } from '../support/cliDatabase.ts';
import { eventually, seed } from '../support/restClient.ts';
import { newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { startTestServer } from '../support/testServer.ts';

const unsealed = z.object({ n: z.number() });

/**
 * A log written by a real server, as an auditor would meet it: users, a role change, API keys
 * issued and deleted, projects and spans, one span export erased — all sealed. The server is stopped; the CLI gets the
 * database through `env` (a PGlite working directory or a PostgreSQL database).
 */
export const auditedServerLog = async (): Promise<{
  env: Record<string, string>;
  open: () => Promise<Database>;
  cleanup: () => Promise<void>;
}> => {
  const place = await cliDatabase();
  const env = { ...place.env, ...authEnv() };
  const open = () => openConfiguredDatabase(loadConfig({ SERVICE_WORKING_DIR: '/nonexistent', ...env }));
  const database = await open();
  const server = await startTestServer({ env, database });
  try {
    const admin = { bearer: env.SERVICE_ADMIN_SECRET };
    const userId = await createUser(server, admin, { email: 'ada@example.com', username: 'ada', role: 'MEMBER', password: 'a-password-1' });
    await callAs(server, 'PATCH', `/v1/users/${userId}`, { as: admin, json: { role: 'ADMIN' } });
    const key = await createKey(server, admin, 'system', 'ci');
    await callAs(server, 'DELETE', `/v1/system/api_keys/${key.id}`, { as: admin });
    await seed(server, 'audited', [spanRecord({ traceId: newTraceId(), name: 'llm call' })]);
    await seed(server, 'audited', [spanRecord({ traceId: newTraceId(), name: 'personal data' })]);
    // An erasure through the store's one removal path: the second export's spans.
    const [, personal] = (await server.store.readAll(START, 10_000)).filter((e) => e.type === 'SpansIngested');
    await server.store.removeContent({
      record: {
        type: 'ContentRemoved',
        data: { kind: 'erasure' },
        metadata: { actor: 'system', requestId: null, time: new Date().toISOString(), causation: null },
      },
      eventIds: [personal!.id],
      rewrite: () => null,
    });
    await eventually(
      () =>
        server.pool.oneFirst(sql.type(unsealed)`
          SELECT count(*)::int AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM audit_seals s WHERE s.seq = e.global_position)`),
      (n) => n === 0,
    );
  } finally {
    await server.close();
    await database.close();
  }
  return { env, open, cleanup: place.cleanup };
};
