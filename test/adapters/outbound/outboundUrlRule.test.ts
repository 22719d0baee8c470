import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkOutboundUrl, type OutboundRefusal, parseAllowedUrls } from '../../../adapters/outbound/outboundUrlRule.ts';
import { loadConfig } from '../../../ops/config.ts';

/**
 * Which URLs the server may call (a playground base URL, a webhook): metadata addresses never by
 * default, an operator's list when set. The playground answers a refusal as a 403 (playgroundChat.test.ts).
 */
const test = suite('outbound URL rule');

const PLAYGROUND = 'SERVICE_PLAYGROUND_ALLOWED_BASE_URLS';
const refusal = (baseUrl: string, allowed: readonly string[] = []): Promise<OutboundRefusal | null> =>
  checkOutboundUrl(baseUrl, { allowed, setting: PLAYGROUND }, 'body.base_url');

test('given no list, link-local and cloud metadata addresses are refused naming the setting', async () => {
  for (const url of [
    'http://169.254.169.254/latest/meta-data',
    'http://169.254.170.2/v1',
    'http://[fe80::1]/v1',
    'http://[::ffff:169.254.169.254]/v1',
    'http://[::ffff:a9fe:a9fe]/v1',
    'http://2852039166/latest',
    'http://0xa9fea9fe/',
    'http://0251.0376.0251.0376/',
    'http://169.254.169.254./',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://metadata.google.internal/computeMetadata/v1',
    'http://METADATA.google.internal./x',
  ]) {
    const e = await refusal(url);
    assert.ok(e, `${url} is refused`);
    assert.match(e!.message, /^body\.base_url: /);
    assert.match(e!.message, /SERVICE_PLAYGROUND_ALLOWED_BASE_URLS/);
  }
});

test('given no list, loopback, private networks and public hosts stay open (self-hosted models)', async () => {
  for (const url of [
    'http://127.0.0.1:11434/v1',
    'http://localhost:8000/v1',
    'http://10.0.0.5/v1',
    'https://api.example.com/v1',
    'http://[::1]:8000/v1',
  ])
    assert.is(await refusal(url), null, url);
});

test('given a list, only base URLs under one of its entries are called, metadata addresses too when listed', async () => {
  const parsed = parseAllowedUrls(' http://127.0.0.1:11434/v1 , https://Gateway.example.com ,http://169.254.169.254/');
  assert.ok('urls' in parsed);
  const allowed = (parsed as { urls: string[] }).urls;
  assert.equal(allowed, ['http://127.0.0.1:11434/v1/', 'https://gateway.example.com/', 'http://169.254.169.254/']);
  assert.is(await refusal('http://127.0.0.1:11434/v1', allowed), null);
  assert.is(await refusal('https://gateway.example.com:443/openai/v1', allowed), null);
  assert.is(await refusal('http://169.254.169.254/v1', allowed), null);
  assert.match((await refusal('http://127.0.0.1:11434/v1beta', allowed))!.message, /not under one of the allowed base URLs/);
  assert.ok(await refusal('http://127.0.0.1:8000/v1', allowed));
  assert.ok(await refusal('http://gateway.example.com/', allowed), 'the scheme counts');
});

test('given a list, every spelling of a listed address is that address; another address or a name is not', async () => {
  const allowed = (parseAllowedUrls('http://127.0.0.1:11434/v1') as { urls: string[] }).urls;
  for (const host of ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', '[::ffff:127.0.0.1]', '0.0.0.0'])
    assert.is(await refusal(`http://${host}:11434/v1`, allowed), null, host);
  for (const host of ['[::1]', 'localhost', '127.0.0.2']) assert.ok(await refusal(`http://${host}:11434/v1`, allowed), host);
  const ipv6 = (parseAllowedUrls('http://[::1]:11434/') as { urls: string[] }).urls;
  assert.is(await refusal('http://[0:0:0:0:0:0:0:1]:11434/v1', ipv6), null);
  assert.is(await refusal('http://[::]:11434/v1', ipv6), null, '[::] reaches [::1]');
});

test('the setting is read from the environment, and a value that is not URLs is a configuration problem', () => {
  const config = loadConfig({ SERVICE_PLAYGROUND_ALLOWED_BASE_URLS: 'http://ollama:11434/v1' });
  assert.equal(config.playground.allowedBaseUrls, ['http://ollama:11434/v1/']);
  assert.throws(() => loadConfig({ SERVICE_PLAYGROUND_ALLOWED_BASE_URLS: 'ftp://x, nope' }), /SERVICE_PLAYGROUND_ALLOWED_BASE_URLS/);
});

test('another caller (a webhook) gets the same rule under its own setting and field name', async () => {
  const rule = { allowed: [], setting: 'SERVICE_ALERT_WEBHOOK_ALLOWED_URLS' };
  const refused = await checkOutboundUrl('http://169.254.169.254/hook', rule, 'body.url');
  assert.match(refused!.message, /^body\.url: "http:\/\/169\.254\.169\.254\/hook" is not allowed: .*SERVICE_ALERT_WEBHOOK_ALLOWED_URLS\.$/);
  assert.is(await checkOutboundUrl('http://10.0.0.7:9000/hook', rule, 'body.url'), null);
});

test.run();
