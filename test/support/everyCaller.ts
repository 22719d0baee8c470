import type { Principal } from '../../domain/access/principal.ts';
import { authEnv, type Credentials, createKey, createUser, login } from './authClient.ts';
import { startTestServer, type TestServer } from './testServer.ts';

/** One way of calling the server, and the principal the permission table should see for it. */
export type Caller = { readonly name: string; readonly as: Credentials | undefined; readonly principal: Principal | null };

/**
 * A server with auth on and one caller of every kind: anonymous, each role signed in, a system
 * key, the admin secret and a user key. Matrix tests call every route or field as each of them.
 */
export const serverWithEveryCaller = async (): Promise<{ server: TestServer; callers: Caller[] }> => {
  const env = authEnv();
  const server = await startTestServer({ env });
  const secret: Credentials = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(server, secret, { email: 'viewer@example.com', username: 'viewer', role: 'VIEWER', password: 'viewer-pw' });
  await createUser(server, secret, { email: 'member@example.com', username: 'member', role: 'MEMBER', password: 'member-pw' });
  const viewer = await login(server, 'viewer@example.com', 'viewer-pw');
  const member = await login(server, 'member@example.com', 'member-pw');
  const admin = await login(server, 'admin@localhost', 'admin');
  const systemKey = await createKey(server, secret, 'system');
  const memberKey = await createKey(server, member, 'user');
  const user = (role: 'VIEWER' | 'MEMBER' | 'ADMIN'): Principal => ({ kind: 'user', userId: 'u', role });
  const callers: Caller[] = [
    { name: 'anonymous', as: undefined, principal: null },
    { name: 'viewer', as: { cookie: viewer.cookie }, principal: user('VIEWER') },
    { name: 'member', as: { cookie: member.cookie }, principal: user('MEMBER') },
    { name: 'admin', as: { cookie: admin.cookie }, principal: user('ADMIN') },
    {
      name: 'system key',
      as: { bearer: systemKey.key },
      principal: { kind: 'apiKey', keyId: 'k', keyKind: 'system', userId: '1', role: 'SYSTEM' },
    },
    { name: 'admin secret', as: secret, principal: { kind: 'adminSecret', userId: '1' } },
    {
      name: 'member key',
      as: { bearer: memberKey.key },
      principal: { kind: 'apiKey', keyId: 'k', keyKind: 'user', userId: 'u', role: 'MEMBER' },
    },
  ];
  return { server, callers };
};
