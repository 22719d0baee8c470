import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { START, type Position, type StoredEvent } from '../../../domain/eventstore/types.ts';
import { authEnv, callAs, createKey, createUser, login } from '../../support/authClient.ts';
import { hrefOf, htmlPart, startSmtpSink } from '../../peers/smtpSink.ts';
import { startTestServer } from '../../support/testServer.ts';

/**
 * Runs the auth flows with recognisable marker values for every password, secret, key and token,
 * then scans every stored event, every log line (at trace level) and every read-model row: none
 * of the markers may appear anywhere.
 */

const marker = (name: string) => `Mk${name}${Math.random().toString(36).slice(2, 10)}`;

test('no password, key, token or secret value reaches the event log, the logs or the read models', async () => {
  const markers = new Map<string, string>();
  const mark = (name: string, value: string) => {
    markers.set(name, value);
    return value;
  };
  const smtpCredentials = { username: 'mailer', password: mark('smtp password', marker('SmtpPw')) };
  const smtp = await startSmtpSink(smtpCredentials);
  const env = authEnv({
    SERVICE_LOG_LEVEL: 'trace',
    SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: mark('initial admin password', marker('InitPw')),
    SERVICE_SMTP_HOSTNAME: '127.0.0.1',
    SERVICE_SMTP_PORT: String(smtp.port),
    SERVICE_SMTP_USERNAME: smtpCredentials.username,
    SERVICE_SMTP_PASSWORD: smtpCredentials.password,
    SERVICE_SMTP_TLS_MODE: 'none',
    SERVICE_ADMINS: 'ops=ops@example.com',
  });
  mark('SERVICE_SECRET', env.SERVICE_SECRET);
  mark('SERVICE_ADMIN_SECRET', env.SERVICE_ADMIN_SECRET);
  const server = await startTestServer({ env });
  try {
    const secret = { bearer: env.SERVICE_ADMIN_SECRET };
    // Admin: first login with the initial password, then a self-service change.
    const admin = await login(server, 'admin@localhost', markers.get('initial admin password')!);
    mark('admin access token', admin.access);
    mark('admin refresh token', admin.refresh);
    const adminPw = mark('admin new password', marker('AdminPw'));
    assert.is(
      (
        await callAs(server, 'PATCH', '/v1/user', {
          as: admin,
          json: { current_password: markers.get('initial admin password'), new_password: adminPw },
        })
      ).status,
      200,
    );
    const admin2 = await login(server, 'admin@localhost', adminPw);

    // A user created with a password, wrong logins up to a lockout, an admin-set password.
    const userPw = mark('user password', marker('UserPw'));
    const id = await createUser(server, admin2, { email: 'una@example.com', username: 'una', role: 'MEMBER', password: userPw });
    const wrong = mark('wrong password', marker('WrongPw'));
    for (let i = 0; i < 6; i++) await callAs(server, 'POST', '/auth/login', { json: { email: 'una@example.com', password: wrong } });
    const adminSet = mark('admin-set password', marker('SetPw'));
    assert.is((await callAs(server, 'PATCH', `/v1/users/${id}`, { as: secret, json: { password: adminSet } })).status, 200);
    const una = await login(server, 'una@example.com', adminSet);
    mark('user access token', una.access);

    // Refresh (new pair), keys of both kinds, bogus credentials presented.
    const refreshed = await callAs(server, 'POST', '/auth/refresh', { as: una });
    mark('refreshed access token', refreshed.cookies['loupe-access-token']!);
    mark('refreshed refresh token', refreshed.cookies['loupe-refresh-token']!);
    const userKey = mark(
      'user key',
      (await createKey(server, { cookie: `loupe-access-token=${refreshed.cookies['loupe-access-token']}` }, 'user')).key,
    );
    const systemKey = mark('system key', (await createKey(server, secret, 'system')).key);
    await callAs(server, 'POST', '/v1/traces', { as: { bearer: userKey }, json: {} });
    await callAs(server, 'GET', '/v1/user', { as: { bearer: systemKey } });
    await callAs(server, 'GET', '/v1/user', { as: { bearer: mark('bogus bearer', marker('Bogus')) } });
    await callAs(server, 'GET', '/v1/user', {
      as: { bearer: `lpk_${'a'.repeat(32)}_${mark('bogus key', marker('BogusKey').padEnd(43, 'x'))}` },
    });

    // Secrets.
    const secretValue = mark('secret value', marker('SecretVal'));
    assert.is(
      (await callAs(server, 'PUT', '/v1/secrets', { as: secret, json: { secrets: [{ key: 'OPENAI_API_KEY', value: secretValue }] } }))
        .status,
      200,
    );
    const listed = await callAs(server, 'GET', '/v1/secrets', { as: secret });
    assert.not.ok(JSON.stringify(listed.body).includes(secretValue), 'the listing shows no value');

    // Password reset by mail, including a malformed new password.
    await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'una@example.com' } });
    const token = mark('reset token', new URL(hrefOf(htmlPart((await smtp.nth(1)).raw), 'reset-url')).searchParams.get('token')!);
    await callAs(server, 'POST', '/auth/password-reset', {
      json: { token, password: mark('bad new password', `${marker('Bad')} with spaces`) },
    });
    const resetPw = mark('reset password', marker('ResetPw'));
    assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token, password: resetPw } })).status, 204);
    await login(server, 'una@example.com', resetPw);
    await callAs(server, 'GET', '/auth/logout', { as: admin2 });

    // Everything stored or written.
    const haystacks: Array<[string, string]> = [];
    let after: Position = START;
    for (;;) {
      const batch: StoredEvent[] = await server.store.readAll(after, 500);
      if (batch.length === 0) break;
      for (const e of batch)
        haystacks.push([
          `event ${e.type} on ${e.stream}`,
          JSON.stringify({ stream: e.stream, type: e.type, data: e.data, metadata: e.metadata }),
        ]);
      after = batch[batch.length - 1]!.position;
    }
    assert.ok(haystacks.length > 20, `only ${haystacks.length} events`);
    for (const line of server.logLines) haystacks.push(['log line', line]);
    for (const table of ['users', 'auth_tokens', 'api_keys', 'secrets']) {
      const rows = await server.pool.any(
        sql.type(z.object({ row: z.string() }))`SELECT row_to_json(t)::text AS row FROM ${sql.identifier([table])} t`,
      );
      for (const { row } of rows) haystacks.push([`${table} row`, row]);
    }
    // The scan sees what it should: names and emails are stored, only secrets are not.
    assert.ok(haystacks.some(([where, text]) => where.startsWith('event') && text.includes('una@example.com')));
    assert.ok(haystacks.some(([where, text]) => where === 'log line' && text.includes('/auth/login')));
    for (const [name, value] of markers) {
      for (const [where, text] of haystacks) assert.not.ok(text.includes(value), `${name} found in ${where}: ${text.slice(0, 300)}`);
    }
  } finally {
    await server.close();
    await smtp.close();
  }
});

test.run();
