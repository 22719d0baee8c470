import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkOutboundUrl, type OutboundRefusal } from '../../../adapters/outbound/outboundUrlRule.ts';
import { alertDestinationRule } from '../../../domain/alerts/alertDestinationRule.ts';
import { parseAllowedUrls } from '../../../domain/base/outboundUrl.ts';
import { playgroundUrlRule } from '../../../domain/playground/playgroundUrlRule.ts';
import { loadConfig } from '../../../ops/config.ts';

/**
 * The one rule for URLs the server calls because a user chose them (domain/base/outboundUrl.ts),
 * as its two callers use it: a playground base URL (metadata addresses never by default, an
 * operator's list when set; answered 403, playgroundChat.test.ts) and an alert destination (public
 * addresses only unless listed; answered 422 naming the field, alertRoutes.test.ts).
 */
const test = suite('outbound URL rule');

const refusal = (baseUrl: string, allowed: readonly string[] = []): Promise<OutboundRefusal | null> =>
  checkOutboundUrl(baseUrl, playgroundUrlRule(allowed), 'body.base_url');
const alertRefusal = (url: string, allowed: readonly string[] = []): Promise<OutboundRefusal | null> =>
  checkOutboundUrl(url, alertDestinationRule(allowed), 'body.destinations.0.url');

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

test('given an alert destination, every inward address is refused however spelled, naming SERVICE_ALERTS_ALLOWED_URLS', async () => {
  for (const url of [
    'http://127.0.0.1:8080/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://100.64.0.1/hook',
    'http://[fc00::1]/hook',
    'http://localhost/hook',
    'http://printer.local/hook',
    'http://169.254.169.254/latest',
    'http://metadata.google.internal/x',
  ]) {
    const e = await alertRefusal(url);
    assert.ok(e, `${url} is refused`);
    assert.match(e!.message, /^body\.destinations\.0\.url: ".*" is not allowed: .*SERVICE_ALERTS_ALLOWED_URLS\.$/);
    assert.not.match(e!.why, /hook|latest/, 'why names no URL (a Slack URL is a credential)');
  }
  assert.match((await alertRefusal('http://127.0.0.1/'))!.why, /loopback, private or link-local/);
  assert.match((await alertRefusal('ftp://a.example.com/'))!.why, /not an http/);
});

test('given an alert destination, public addresses are called, and a listed inward URL (any spelling) too', async () => {
  assert.is(await alertRefusal('https://93.184.215.14/hook'), null);
  assert.is(await alertRefusal('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook'), null);
  const allowed = (parseAllowedUrls('http://127.0.0.1:9000/') as { urls: string[] }).urls;
  assert.is(await alertRefusal('http://127.0.0.1:9000/hook', allowed), null);
  assert.is(await alertRefusal('http://2130706433:9000/hook', allowed), null);
  assert.ok(await alertRefusal('http://127.0.0.1:9001/hook', allowed), 'another port is not listed');
  assert.is(await alertRefusal('https://93.184.215.14/hook', allowed), null, 'a list exempts; it does not close the public internet');
});

test('given a local name, an alert destination is refused and a playground base URL is not (a model on localhost)', async () => {
  assert.match((await alertRefusal('http://localhost.:8080/'))!.why, /loopback, private or link-local/);
  assert.is(await refusal('http://localhost:8080/v1'), null);
});

test.run();
