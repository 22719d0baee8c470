import { Writable } from 'node:stream';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { START, type EventStore } from '../../domain/eventstore/types.ts';
import type { UserCreated } from '../../domain/identity/events.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import { logIn } from '../../domain/identity/logIn.ts';
import { createPasswordHasher } from '../../domain/identity/passwords.ts';
import { createUser } from '../../domain/identity/createUser.ts';
import { bootstrapIdentity, DEFAULT_ADMIN_USER_ID, SYSTEM_USER_ID } from '../../ops/bootstrapIdentity.ts';
import { loadConfig } from '../../ops/config.ts';
import { createLogger } from '../../ops/logger.ts';
import { freshMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_PASSWORD_COST } from '../support/testIdentity.ts';

type Ctx = { db: TestDatabase; store: EventStore };

const passwords = createPasswordHasher(TEST_PASSWORD_COST);
const logger = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const authConfig = (env: Record<string, string> = {}) =>
  loadConfig({ SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: 'a-long-enough-secret-1234567890abcdef', ...env }).auth;

/**
 * The users created so far, read once readAll shows every committed event. On Postgres, readAll
 * only returns events older than every transaction still running in the cluster, so other test
 * databases on the same server can hold it back for a moment.
 */
const created = async ({ db, store }: Ctx): Promise<UserCreated['data'][]> => {
  const until = Date.now() + 30_000;
  for (;;) {
    const events = await store.readAll(START, 100_000);
    const committed = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
    if (events.length === committed || Date.now() > until) {
      return events.filter((e) => e.type === 'UserCreated').map((e) => e.data as UserCreated['data']);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

const session = {
  accessTokenId: 'a1',
  accessExpiresAt: '2999-01-01T00:00:00.000Z',
  refreshTokenId: 'r1',
  refreshExpiresAt: '2999-01-01T00:00:00.000Z',
};
const tryLogin = (store: EventStore, email: string, password: string) =>
  logIn(
    store,
    passwords,
    { email, password, lockout: { enabled: true, maxAttempts: 5 }, session, now: new Date().toISOString() },
    { actor: 'test', requestId: null },
  );

const test = suite<Ctx>('bootstrapIdentity', {} as Ctx);
test.before.each(async (ctx) => {
  ctx.db = await freshMigratedDatabase();
  ctx.store = createPostgresEventStore(ctx.db.pool);
});
test.after.each(async (ctx) => {
  await ctx.db.close();
});

test('creates the system user, the default admin and SERVICE_ADMINS once, even when two processes start together', async (ctx) => {
  const { store } = ctx;
  const auth = authConfig({
    SERVICE_ADMINS: 'Zoe=zoe@example.com;Yan Li=YAN@example.com',
    SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 'first-pw',
  });
  await Promise.all([bootstrapIdentity({ store, passwords, auth, logger }), bootstrapIdentity({ store, passwords, auth, logger })]);
  const users = await created(ctx);
  assert.equal(users.map((u) => u.username).sort(), ['Yan Li', 'Zoe', 'admin', 'system']);
  const byName = Object.fromEntries(users.map((u) => [u.username, u]));
  assert.equal([byName.system!.userId, byName.system!.role, byName.system!.passwordHash], [SYSTEM_USER_ID, 'SYSTEM', null]);
  assert.equal(
    [byName.admin!.userId, byName.admin!.email, byName.admin!.role, byName.admin!.passwordNeedsReset],
    [DEFAULT_ADMIN_USER_ID, 'admin@localhost', 'ADMIN', true],
  );
  const yan = byName['Yan Li']!;
  assert.equal(
    [yan.email, yan.role, yan.authMethod, yan.passwordHash, yan.passwordNeedsReset],
    ['yan@example.com', 'ADMIN', 'LOCAL', null, true],
  );
  assert.is(await bootstrapIdentity({ store, passwords, auth, logger }), null, 'a restart writes nothing');
  assert.is((await created(ctx)).length, 4);
});

test('the initial admin password is read only when the account is created', async (ctx) => {
  const { store } = ctx;
  await bootstrapIdentity({ store, passwords, auth: authConfig({ SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 'first-pw' }), logger });
  await bootstrapIdentity({ store, passwords, auth: authConfig({ SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 'second-pw' }), logger });
  assert.is((await tryLogin(store, 'admin@localhost', 'second-pw')).ok, false);
  assert.is((await tryLogin(store, 'admin@localhost', 'first-pw')).ok, true);
});

test('SERVICE_ADMINS entries whose username or email exists are left as they are; SERVICE_ADMINS users log in only after a reset', async (ctx) => {
  const { store } = ctx;
  await createUser(
    store,
    {
      type: 'CreateUser',
      userId: 'carol',
      username: 'carol',
      email: 'carol@example.com',
      role: 'VIEWER',
      authMethod: 'LOCAL',
      passwordHash: await passwords.hash('carol-pw'),
      passwordNeedsReset: false,
      now: new Date().toISOString(),
    },
    { actor: 'test', requestId: null },
  );
  await bootstrapIdentity({
    store,
    passwords,
    auth: authConfig({ SERVICE_ADMINS: 'carol=other@example.com;dave=Carol@example.com;erin=erin@example.com' }),
    logger,
  });
  assert.equal((await created(ctx)).map((u) => u.username).sort(), ['admin', 'carol', 'erin', 'system']);
  assert.is((await loadUser(store, 'carol')).profile?.role, 'VIEWER', 'never promoted');
  assert.is((await tryLogin(store, 'erin@example.com', '')).ok, false);
});

test('with basic auth disabled, SERVICE_ADMINS users are created for the external provider', async (ctx) => {
  const { store } = ctx;
  const auth = authConfig({
    SERVICE_ADMINS: 'fay=fay@example.com',
    SERVICE_DISABLE_BASIC_AUTH: 'true',
    SERVICE_OAUTH2_IDP_CLIENT_ID: 'x',
    SERVICE_OAUTH2_IDP_CLIENT_SECRET: 'x-secret',
    SERVICE_OAUTH2_IDP_OIDC_CONFIG_URL: 'https://idp.example.org/.well-known/openid-configuration',
  });
  await bootstrapIdentity({ store, passwords, auth, logger });
  const fay = (await created(ctx)).find((u) => u.username === 'fay')!;
  assert.equal([fay.authMethod, fay.role, fay.passwordHash], ['OAUTH2', 'ADMIN', null]);
});

test.run();

const config = suite('SERVICE_ADMINS at startup');
config('an unparsable SERVICE_ADMINS or an invalid email stops startup with a message naming the variable', () => {
  for (const value of ['no-equals-sign', 'bob=not-an-email']) {
    try {
      authConfig({ SERVICE_ADMINS: value });
      assert.unreachable(value);
    } catch (error) {
      assert.match((error as Error).message, /^SERVICE_ADMINS: /m);
    }
  }
});
config.run();
