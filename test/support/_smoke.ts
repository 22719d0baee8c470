import { startTestServer } from './testServer.ts';
import { authEnv, call, login, createUser, createKey } from './authClient.ts';
const env = authEnv();
const server = await startTestServer({ env });
try {
  console.log(await call(server, 'GET', '/v1/user'));
  console.log((await call(server, 'GET', '/v1/user', { as: { bearer: env.SERVICE_ADMIN_SECRET } })).body);
  const admin = await login(server, 'admin@localhost', 'admin');
  console.log((await call(server, 'GET', '/v1/user', { as: admin })).body);
  const id = await createUser(server, { bearer: env.SERVICE_ADMIN_SECRET }, { email: 'Bob@Example.com', username: 'bob', role: 'member', password: 'bobpw' });
  const bob = await login(server, 'bob@example.com', 'bobpw');
  const k = await createKey(server, bob, 'user');
  console.log(k, (await call(server, 'GET', '/v1/user', { as: { bearer: k.key } })).body);
  console.log((await call(server, 'GET', '/v1/users', { as: admin })).body);
  console.log((await call(server, 'PUT', '/v1/secrets', { as: admin, json: { secrets: [{ key: 'OPENAI', value: 'sk-1' }, { key: 'X', value: null }] } })).body);
  console.log((await call(server, 'GET', '/v1/secrets?search=adm', { as: admin })).body);
  console.log((await call(server, 'PATCH', `/v1/users/${id}`, { as: admin, json: { role: 'viewer' } })).body);
  console.log((await call(server, 'PUT', '/v1/secrets', { as: { bearer: k.key }, json: {} })));
  console.log((await call(server, 'POST', '/auth/refresh', { as: bob })).status);
  console.log((await call(server, 'POST', '/auth/refresh', { as: bob })).body);
  console.log((await call(server, 'GET', '/auth/logout', { as: admin })).headers.get('location'));
  console.log(server.logLines.slice(-3));
} finally {
  await server.close();
}
