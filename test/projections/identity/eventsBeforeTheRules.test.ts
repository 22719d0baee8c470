import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventMetadata } from '../../../domain/eventstore/types.ts';
import { authEnv, callAs } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * The write rules keep NUL, unpaired surrogates, over-long keys and unstorable expiries out of
 * new events; a log written before them (or an event crafted into it) may still hold such
 * values. Replaying one must store something Postgres accepts, not stop the read model.
 */

const metadata: EventMetadata = { actor: 'system', requestId: null, time: '2026-01-01T00:00:00.000Z', causation: 'test' };
const AT = '2026-01-01T00:00:00.000Z';

type Ctx = { server: TestServer; admin: { bearer: string } };
const test = suite<Ctx>('identity events from before the write rules', {} as Ctx);

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('given a NUL username, an 8 KB secret key and a year-20000 key expiry in the log, the read models apply them and keep going', async ({
  server,
  admin,
}) => {
  const { store } = server;
  await store.appendToStream(
    'user-oldpoison',
    [
      {
        type: 'UserCreated',
        data: {
          userId: 'oldpoison',
          username: 'ev\u0000il\ud800',
          email: 'old\u0000@example.com',
          role: 'MEMBER',
          authMethod: 'LOCAL',
          passwordHash: null,
          passwordNeedsReset: false,
          builtIn: null,
          oauth2ClientId: null,
          oauth2UserId: null,
          ldapUniqueId: null,
          at: AT,
        },
        metadata,
      },
    ],
    'no_stream',
  );
  await store.appendToStream(
    'apikey-oldpoison',
    [
      {
        type: 'ApiKeyIssued',
        data: {
          keyId: 'oldpoison',
          kind: 'system',
          ownerUserId: null,
          createdBy: 'oldpoison',
          name: 'n\u0000',
          description: 'd\u0000',
          expiresAt: '+020000-01-01T00:00:00.000Z',
          keyHash: `sha256:${'a'.repeat(43)}`,
          at: AT,
        },
        metadata,
      },
    ],
    'no_stream',
  );
  const sealed = { keyId: 'k', iv: 'i', ciphertext: 'c', tag: 't' };
  await store.appendToStream(
    'secrets',
    [
      {
        type: 'SecretsReplaced',
        data: { upserted: [{ key: 'K'.repeat(8192), value: sealed }], deleted: [], userId: null, at: AT },
        metadata,
      },
    ],
    'any',
  );

  await server.runner.waitFor(await store.headPosition(), 20_000);
  const users = await callAs(server, 'GET', '/v1/users', { as: admin });
  const old = users.body.data.find((u: { email: string }) => u.email.startsWith('old'));
  assert.is(old.username, 'ev\ufffdil\ufffd');
  const keys = await callAs(server, 'GET', '/v1/system/api_keys', { as: admin });
  assert.equal(
    keys.body.data.map((k: { name: string; expires_at: string }) => [k.name, k.expires_at.slice(0, 4)]),
    [['n\ufffd', '9999']],
  );
  const secrets = await callAs(server, 'GET', '/v1/secrets', { as: admin });
  assert.equal(
    secrets.body.data.map((s: { key: string }) => s.key.length),
    [512],
  );

  // And fresh writes still show.
  assert.is((await callAs(server, 'PUT', '/v1/secrets', { as: admin, json: { secrets: [{ key: 'NEW', value: 'v' }] } })).status, 200);
});

test.run();
