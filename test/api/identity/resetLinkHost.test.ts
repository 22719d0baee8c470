import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hrefOf, htmlPart, startSmtpSink } from '../../peers/smtpSink.ts';
import { authEnv, createUser } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * A reset link carries a valid token, so its host must never come from the request: otherwise
 * an attacker asks for a reset of the victim's account with `Host: evil.example` and the victim
 * is mailed a working token on the attacker's site. Links come from SERVICE_ROOT_URL, else
 * localhost; forwarded headers count only when SERVICE_TRUST_PROXY says a proxy sets them.
 */

const SMTP = { username: 'loupe-mailer', password: 'smtp-pass-123' };

/** fetch() will not send a Host header of our choosing; node:http will. */
const postWithHeaders = (server: TestServer, path: string, json: unknown, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify(json);
    const req = request(
      {
        host: '127.0.0.1',
        port: server.ports.http,
        method: 'POST',
        path: `${server.config.http.rootPath}${path}`,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

type Smtp = Awaited<ReturnType<typeof startSmtpSink>>;

const withServer = async (
  extra: Record<string, string>,
  run: (server: TestServer, smtp: Smtp, admin: { bearer: string }) => Promise<void>,
) => {
  const smtp = await startSmtpSink(SMTP);
  const env = authEnv({
    SERVICE_SMTP_HOSTNAME: '127.0.0.1',
    SERVICE_SMTP_PORT: String(smtp.port),
    SERVICE_SMTP_USERNAME: SMTP.username,
    SERVICE_SMTP_PASSWORD: SMTP.password,
    SERVICE_SMTP_TLS_MODE: 'none',
    ...extra,
  });
  const server = await startTestServer({ env });
  try {
    await createUser(
      server,
      { bearer: env.SERVICE_ADMIN_SECRET },
      { email: 'vic@example.com', username: 'vic', role: 'MEMBER', password: 'vic-pw' },
    );
    await run(server, smtp, { bearer: env.SERVICE_ADMIN_SECRET });
  } finally {
    await server.close();
    await smtp.close();
  }
};

const test = suite('reset link host');

test('given no SERVICE_ROOT_URL, when a reset is asked for with a hostile Host and X-Forwarded-Host, then the link points at localhost', async () => {
  await withServer({}, async (server, smtp) => {
    assert.ok(
      server.logLines.some((line) => line.includes('SERVICE_ROOT_URL is unset')),
      'a warning at start says mail links will point at localhost',
    );
    assert.is(await postWithHeaders(server, '/auth/password-reset-email', { email: 'vic@example.com' }, HOSTILE), 204);
    const link = hrefOf(htmlPart((await smtp.nth(1)).raw), 'reset-url');
    assert.not.ok(link.includes('evil.example'), link);
    assert.ok(link.startsWith(`http://localhost:${server.ports.http}/reset-password-with-token?token=`), link);
  });
});

test('given no SERVICE_ROOT_URL, the welcome mail of a new user does not follow the Host header either', async () => {
  await withServer({}, async (server, smtp, admin) => {
    const status = await postWithHeaders(
      server,
      '/v1/users',
      {
        user: { email: 'new@example.com', username: 'new', role: 'MEMBER', auth_method: 'LOCAL', password: 'new-pw' },
        send_welcome_email: true,
      },
      { ...HOSTILE, authorization: `Bearer ${admin.bearer}` },
    );
    assert.is(status, 201);
    const link = hrefOf(htmlPart((await smtp.nth(1)).raw), 'welcome-url');
    assert.not.ok(link.includes('evil.example'), link);
  });
});

test('given SERVICE_ROOT_URL, the link is under it whatever the headers say', async () => {
  await withServer({ SERVICE_ROOT_URL: 'https://loupe.example.com/sub', SERVICE_TRUST_PROXY: 'true' }, async (server, smtp) => {
    assert.is(await postWithHeaders(server, '/auth/password-reset-email', { email: 'vic@example.com' }, HOSTILE), 204);
    const link = hrefOf(htmlPart((await smtp.nth(1)).raw), 'reset-url');
    assert.ok(link.startsWith('https://loupe.example.com/sub/reset-password-with-token?token='), link);
  });
});

test('given SERVICE_TRUST_PROXY and no SERVICE_ROOT_URL, the operator has said the proxy sets the forwarded host: the link uses it', async () => {
  await withServer({ SERVICE_TRUST_PROXY: 'true' }, async (server, smtp) => {
    const proxied = { host: '127.0.0.1', 'x-forwarded-host': 'loupe.internal.example', 'x-forwarded-proto': 'https' };
    assert.is(await postWithHeaders(server, '/auth/password-reset-email', { email: 'vic@example.com' }, proxied), 204);
    const link = hrefOf(htmlPart((await smtp.nth(1)).raw), 'reset-url');
    assert.ok(link.startsWith('https://loupe.internal.example/reset-password-with-token?token='), link);
  });
});

test.run();
