import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalBaseUrl } from '../../../domain/base/outboundUrl.ts';
import { type CredentialRequest, chooseCredential } from '../../../domain/playground/playgroundCredential.ts';
import { type PlaygroundProvider, playgroundProvider } from '../../../domain/playground/playgroundProvider.ts';

const OPENAI = playgroundProvider('OPENAI') as PlaygroundProvider;
const OLLAMA = playgroundProvider('OLLAMA') as PlaygroundProvider;
const MINE = 'http://10.0.0.9:8000/v1/';
const BOUND = 'http://10.0.0.5:11434/v1/';

const choose = (r: Partial<CredentialRequest>) =>
  chooseCredential({
    provider: OPENAI,
    baseUrl: null,
    apiKeySecret: undefined,
    apiKey: undefined,
    boundBaseUrl: null,
    mayRouteSecrets: false,
    ...r,
  });

test('every spelling of an address is one canonical base URL', () => {
  for (const raw of [
    'http://127.0.0.1:8000/v1',
    'http://2130706433:8000/v1/',
    'http://0x7f000001:8000/v1',
    'http://0177.0.0.1:8000/v1',
    'http://0x7f.1:8000/v1',
    'http://[::ffff:127.0.0.1]:8000/v1',
    'http://[::FFFF:7f00:1]:8000/v1',
    'http://0.0.0.0:8000/v1',
    'HTTP://127.0.0.1.:8000/v1?x=1#y',
  ])
    assert.is(canonicalBaseUrl(raw), 'http://127.0.0.1:8000/v1/', raw);
  assert.is(canonicalBaseUrl('http://[::]:80/'), 'http://[::1]/');
  assert.is(canonicalBaseUrl('http://[0:0:0:0:0:0:0:1]/v1'), 'http://[::1]/v1/');
  assert.is(canonicalBaseUrl('https://API.openai.com:443/v1'), 'https://api.openai.com/v1/');
  assert.is(canonicalBaseUrl('http://user:pw@127.0.0.1/'), null, 'credentials in a base URL are refused');
  assert.is(canonicalBaseUrl('ftp://127.0.0.1/'), null);
  assert.is(canonicalBaseUrl('nope'), null);
});

test("a stored key goes to the provider's own endpoint, or the base URL an admin bound it to", () => {
  assert.equal(choose({}), {
    destination: 'https://api.openai.com/v1/',
    credential: { kind: 'stored', name: 'OPENAI_API_KEY', orNone: false },
  });
  assert.equal(choose({ baseUrl: 'https://api.openai.com/v1/' }), choose({}), 'naming the own endpoint changes nothing');
  assert.equal(choose({ apiKeySecret: 'OPENAI_API_KEY' }), choose({}), "naming the provider's own key changes nothing");
  assert.equal(choose({ provider: OLLAMA, boundBaseUrl: BOUND }), {
    destination: BOUND,
    credential: { kind: 'stored', name: 'OLLAMA_API_KEY', orNone: true },
  });
  assert.equal(choose({ provider: OLLAMA, boundBaseUrl: BOUND, baseUrl: BOUND }), choose({ provider: OLLAMA, boundBaseUrl: BOUND }));
  assert.equal(
    (choose({ boundBaseUrl: BOUND }) as { destination: string }).destination,
    BOUND,
    "a bound base URL replaces the provider's own endpoint",
  );
});

test('anywhere else, a member calls with their own key or none, and may not name a stored secret', () => {
  assert.equal(choose({ baseUrl: MINE }), { destination: MINE, credential: { kind: 'none' } });
  assert.equal(choose({ baseUrl: MINE, apiKey: 'sk-own' }), { destination: MINE, credential: { kind: 'own', key: 'sk-own' } });
  assert.equal((choose({ apiKey: 'sk-own' }) as { destination: string }).destination, 'https://api.openai.com/v1/');
  assert.equal(choose({ baseUrl: MINE, apiKey: '' }), { destination: MINE, credential: { kind: 'none' } });
  assert.equal(choose({ provider: OLLAMA, boundBaseUrl: BOUND, baseUrl: MINE }), { destination: MINE, credential: { kind: 'none' } });
  const refusal = (r: Partial<CredentialRequest>) => {
    const c = choose(r);
    return 'refused' in c ? `${c.refused.status} ${c.refused.code}` : 'allowed';
  };
  assert.is(refusal({ apiKeySecret: 'DB_PASSWORD' }), '403 secret_not_allowed');
  assert.is(refusal({ apiKeySecret: 'DB_PASSWORD', baseUrl: MINE }), '403 secret_not_allowed');
  assert.is(refusal({ apiKeySecret: 'OPENAI_API_KEY', baseUrl: MINE }), '403 stored_key_not_allowed');
  assert.is(refusal({ apiKeySecret: 'OPENAI_API_KEY', apiKey: 'sk-own' }), '422 conflicting_keys');
  assert.is(refusal({ provider: OLLAMA }), '422 missing_base_url');
});

test('an admin may send any stored secret anywhere (the base URL rule still applies)', () => {
  assert.equal(choose({ mayRouteSecrets: true, apiKeySecret: 'DB_PASSWORD', baseUrl: MINE }), {
    destination: MINE,
    credential: { kind: 'stored', name: 'DB_PASSWORD', orNone: false },
  });
  assert.equal(choose({ mayRouteSecrets: true, baseUrl: MINE }), {
    destination: MINE,
    credential: { kind: 'stored', name: 'OPENAI_API_KEY', orNone: true },
  });
});

test.run();
