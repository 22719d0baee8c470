import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, login } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { hrefOf, htmlPart, startSmtpSink, subjectOf } from '../../peers/smtpSink.ts';

/** Password reset end to end: a real SMTP server receives the mail, the link in it resets the password. */

const SMTP = { username: 'loupe-mailer', password: 'smtp-pass-123' };

type Ctx = { server: TestServer; smtp: Awaited<ReturnType<typeof startSmtpSink>>; env: ReturnType<typeof authEnv> };
const test = suite<Ctx>('password reset', {} as Ctx);

test.before(async (ctx) => {
  ctx.smtp = await startSmtpSink(SMTP);
  ctx.env = authEnv({
    SERVICE_SMTP_HOSTNAME: '127.0.0.1',
    SERVICE_SMTP_PORT: String(ctx.smtp.port),
    SERVICE_SMTP_USERNAME: SMTP.username,
    SERVICE_SMTP_PASSWORD: SMTP.password,
    SERVICE_SMTP_TLS_MODE: 'none',
    SERVICE_SMTP_MAIL_FROM: 'Loupe <loupe@example.com>',
    SERVICE_ROOT_URL: 'https://loupe.example.com/sub',
  });
  ctx.server = await startTestServer({ env: ctx.env });
  await createUser(
    ctx.server,
    { bearer: ctx.env.SERVICE_ADMIN_SECRET },
    { email: 'rita@example.com', username: 'rita', role: 'MEMBER', password: 'rita-old' },
  );
});
test.after(async (ctx) => {
  await ctx.server.close();
  await ctx.smtp.close();
});

const tokenFrom = (link: string): string => new URL(link).searchParams.get('token')!;

test('a reset mail arrives through SMTP with a link under SERVICE_ROOT_URL; the link resets the password once', async ({
  server,
  smtp,
}) => {
  const before = await login(server, 'rita@example.com', 'rita-old');
  const sent = await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: ' Rita@Example.com ' } });
  assert.is(sent.status, 204);
  const mail = await smtp.nth(1);
  assert.equal(mail.to, ['rita@example.com']);
  assert.is(mail.from, 'loupe@example.com');
  assert.is(mail.user, SMTP.username, 'the transport authenticated with the configured credentials');
  assert.is(subjectOf(mail.raw), '[Loupe] Password Reset Request');
  const link = hrefOf(htmlPart(mail.raw), 'reset-url');
  assert.ok(link.startsWith('https://loupe.example.com/sub/reset-password-with-token?token='), link);
  const token = tokenFrom(link);
  assert.match(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti, /^PasswordResetToken:/);

  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: token } })).status, 401, 'a reset token is no credential');
  assert.is((await login(server, 'rita@example.com', 'rita-old')).cookie !== undefined, true, 'asking for a reset changes nothing yet');

  const reset = await callAs(server, 'POST', '/auth/password-reset', { json: { token, password: 'rita-new' } });
  assert.is(reset.status, 204);
  assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'rita@example.com', password: 'rita-old' } })).status, 401);
  const after = await login(server, 'rita@example.com', 'rita-new');
  assert.is((await callAs(server, 'GET', '/v1/user', { as: after })).body.data.password_needs_reset, false);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: before })).status, 401, 'earlier sessions end');
  const again = await callAs(server, 'POST', '/auth/password-reset', { json: { token, password: 'rita-third' } });
  assert.is(again.status, 401);
  assert.is(again.body.detail, 'Invalid token');
});

test('unknown emails get the same 204 and no mail; only the latest link works', async ({ server, smtp }) => {
  const count = smtp.mails.length;
  assert.is((await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'nobody@example.com' } })).status, 204);
  await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'rita@example.com' } });
  await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'rita@example.com' } });
  const first = tokenFrom(hrefOf(htmlPart((await smtp.nth(count + 1)).raw), 'reset-url'));
  const second = tokenFrom(hrefOf(htmlPart((await smtp.nth(count + 2)).raw), 'reset-url'));
  await new Promise((r) => setTimeout(r, 200));
  assert.is(smtp.mails.length, count + 2, 'nothing was sent for the unknown address');
  assert.ok(smtp.mails.every((m) => !m.to.includes('nobody@example.com')));
  assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token: first, password: 'rita-x1' } })).status, 401);
  assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token: second, password: 'rita-x2' } })).status, 204);
  await login(server, 'rita@example.com', 'rita-x2');
});

test('a reset also lifts a lockout', async ({ server, smtp, env }) => {
  await createUser(
    server,
    { bearer: env.SERVICE_ADMIN_SECRET },
    { email: 'sam@example.com', username: 'sam', role: 'MEMBER', password: 'sam-pw' },
  );
  for (let i = 0; i < 5; i++) await callAs(server, 'POST', '/auth/login', { json: { email: 'sam@example.com', password: 'wrong' } });
  assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'sam@example.com', password: 'sam-pw' } })).status, 429);
  const count = smtp.mails.length;
  await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'sam@example.com' } });
  const token = tokenFrom(hrefOf(htmlPart((await smtp.nth(count + 1)).raw), 'reset-url'));
  assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token, password: 'sam-new' } })).status, 204);
  await login(server, 'sam@example.com', 'sam-new');
});

test('malformed requests', async ({ server }) => {
  assert.is((await callAs(server, 'POST', '/auth/password-reset-email', { json: {} })).status, 422);
  assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token: 'x' } })).status, 422);
  assert.is((await callAs(server, 'POST', '/auth/password-reset', { json: { token: 'garbage', password: 'whatever' } })).status, 401);
});

test.run();

const noSmtp = suite('password reset without SMTP');
noSmtp('answers 503 when no SMTP server is configured', async () => {
  const server = await startTestServer({ env: authEnv() });
  try {
    const reply = await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'admin@localhost' } });
    assert.is(reply.status, 503);
    assert.is(reply.body.detail, 'SMTP server not configured');
  } finally {
    await server.close();
  }
});
noSmtp.run();
