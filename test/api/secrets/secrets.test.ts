import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { START } from '../../../domain/eventstore/types.ts';
import type { SecretsReplaced } from '../../../domain/secrets/events.ts';
import { decryptSecret } from '../../../domain/secrets/crypto.ts';
import { secretKeyring } from '../../../ops/secretKeyring.ts';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; admin: Credentials; env: ReturnType<typeof authEnv> };
const test = suite<Ctx>('secrets REST', {} as Ctx);

test.before(async (ctx) => {
  ctx.env = authEnv();
  ctx.server = await startTestServer({ env: ctx.env });
  ctx.admin = { bearer: ctx.env.SERVICE_ADMIN_SECRET };
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const put = (ctx: Ctx, secrets: unknown, as: Credentials = ctx.admin) =>
  callAs(ctx.server, 'PUT', '/v1/secrets', { as, json: { secrets } });

test('PUT /v1/secrets: one atomic batch, last occurrence wins, null deletes, values never echoed', async (ctx) => {
  const reply = await put(ctx, [
    { key: 'OPENAI_API_KEY', value: 'sk-first' },
    { key: ' ANTHROPIC_API_KEY ', value: ' sk-ant ' },
    { key: 'OPENAI_API_KEY', value: 'sk-second' },
    { key: 'NEVER_EXISTED', value: null },
  ]);
  assert.is(reply.status, 200);
  assert.equal(reply.body, { data: { upserted_keys: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'], deleted_keys: ['NEVER_EXISTED'] } });
  const events = (await ctx.server.store.readAll(START, 10_000)).filter((e) => e.type === 'SecretsReplaced');
  assert.is(events.length, 1, 'one event for the batch');
  const data = (events[0] as unknown as SecretsReplaced).data;
  assert.equal(data.deleted, [], 'deleting a missing key is a no-op');
  const keyring = secretKeyring(ctx.env.SERVICE_SECRET);
  const sealed = Object.fromEntries(data.upserted.map((u) => [u.key, u.value]));
  assert.is(decryptSecret(keyring, sealed.OPENAI_API_KEY!, 'OPENAI_API_KEY'), 'sk-second');
  assert.is(decryptSecret(keyring, sealed.ANTHROPIC_API_KEY!, 'ANTHROPIC_API_KEY'), 'sk-ant');
  assert.is(sealed.OPENAI_API_KEY!.keyId, keyring.currentKeyId, 'sealed under the key of SERVICE_SECRET, named by its id');
  assert.not.ok(JSON.stringify(events[0]!.data).includes('sk-second'));

  const removed = await put(ctx, [{ key: 'ANTHROPIC_API_KEY', value: null }]);
  assert.equal(removed.body.data, { upserted_keys: [], deleted_keys: ['ANTHROPIC_API_KEY'] });
});

test('PUT /v1/secrets refusals: 422 for bad keys, blank values, a missing value field, an empty list', async (ctx) => {
  for (const secrets of [[{ key: '1BAD', value: 'x' }], [{ key: '', value: 'x' }], [{ key: 'OK', value: '  ' }], [{ key: 'OK' }], []]) {
    assert.is((await put(ctx, secrets)).status, 422, JSON.stringify(secrets));
  }
});

test('GET /v1/secrets: key names, owner and dates, searchable by key or owner; never a value', async (ctx) => {
  await createUser(ctx.server, ctx.admin, { email: 'vera@example.com', username: 'vera', role: 'ADMIN', password: 'vera-pw' });
  const vera = await login(ctx.server, 'vera@example.com', 'vera-pw');
  await put(ctx, [{ key: 'MISTRAL_API_KEY', value: 'mistral-value' }], vera);
  const all = await callAs(ctx.server, 'GET', '/v1/secrets', { as: ctx.admin });
  assert.is(all.status, 200);
  assert.equal(
    all.body.data.map((s: { key: string }) => s.key),
    ['MISTRAL_API_KEY', 'OPENAI_API_KEY'],
  );
  const mistral = all.body.data[0];
  assert.equal(Object.keys(mistral).sort(), ['created_at', 'key', 'owner', 'updated_at']);
  assert.equal([mistral.owner.username, mistral.owner.email], ['vera', 'vera@example.com']);
  assert.is(all.body.data[1].owner.username, 'system', 'written with the admin secret: the system user');
  assert.not.ok(JSON.stringify(all.body).includes('mistral-value') || JSON.stringify(all.body).includes('sk-second'));
  const byKey = await callAs(ctx.server, 'GET', '/v1/secrets?search=openai', { as: ctx.admin });
  assert.equal(
    byKey.body.data.map((s: { key: string }) => s.key),
    ['OPENAI_API_KEY'],
  );
  const byOwner = await callAs(ctx.server, 'GET', '/v1/secrets?search=VERA@', { as: ctx.admin });
  assert.equal(
    byOwner.body.data.map((s: { key: string }) => s.key),
    ['MISTRAL_API_KEY'],
  );
  const page = await callAs(ctx.server, 'GET', '/v1/secrets?limit=1', { as: ctx.admin });
  const next = await callAs(ctx.server, 'GET', `/v1/secrets?limit=1&cursor=${page.body.next_cursor}`, { as: ctx.admin });
  assert.equal(
    next.body.data.map((s: { key: string }) => s.key),
    ['OPENAI_API_KEY'],
  );
});

test.run();
