import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createModelClient } from '../../../adapters/outbound/modelClient.ts';
import { type ModelClient, ModelRefusal } from '../../../domain/modelCalls/modelCall.ts';
import { createKeyring, encryptSecret } from '../../../domain/secrets/crypto.ts';
import { type OpenAi, startOpenAi } from '../../peers/openAi.ts';

/**
 * The model port as a reactor holds it: no route, no request, no api/ import. A local server
 * speaking OpenAI's streaming protocol stands in for the provider.
 */
type Ctx = { fake: OpenAi; models: ModelClient; debug: string[] };
const test = suite<Ctx>('model client (the outbound port for model providers)', {} as Ctx);

test.before.each(async (ctx) => {
  ctx.fake = await startOpenAi();
  ctx.debug = [];
  const keyring = createKeyring([{ keyId: 'k1', secret: 'a test secret for the keyring' }]);
  ctx.models = createModelClient({
    settings: {
      timeoutSeconds: 5,
      environmentKeys: {},
      environmentBaseUrls: { OLLAMA_BASE_URL: `${ctx.fake.baseUrl}/` },
      allowedBaseUrls: [],
    },
    // The secrets read model's sealed values: the adapter decrypts the stored key on the server only.
    sealedSecrets: async (names) =>
      new Map(names.includes('OLLAMA_API_KEY') ? [['OLLAMA_API_KEY', encryptSecret(keyring, 'sk-stored', 'OLLAMA_API_KEY')]] : []),
    keyring,
    logger: { debug: (obj: object) => void ctx.debug.push(JSON.stringify(obj)) } as never,
  });
});
test.after.each(async (ctx) => {
  await ctx.fake.close();
});

const never = new AbortController().signal;

test('given a provider an operator bound, when a reactor calls a model, then it gets the whole answer and every delta', async (ctx) => {
  const { models, fake } = ctx;
  const endpoint = await models.endpoint({
    provider: 'OLLAMA',
    baseUrl: null,
    apiKeySecret: undefined,
    apiKey: undefined,
    mayRouteSecrets: false,
  });
  assert.is(endpoint.baseUrl, `${fake.baseUrl}/`);
  const deltas: string[] = [];
  const answer = await models.call(
    endpoint,
    { model: 'words', messages: [{ role: 'user', content: 'hi' }], parameters: { temperature: 0 }, tools: [] },
    { cancelled: never, onDelta: (d) => d.type === 'delta' && deltas.push(d.text) },
  );
  assert.is(answer.error, null);
  assert.is(answer.text, 'Hello brave world');
  assert.equal(deltas, ['Hello', ' brave', ' world']);
  assert.is(fake.received[0]!.body.temperature, 0);
  assert.is(fake.received[0]!.authorization, 'Bearer sk-stored', 'the stored key, decrypted, goes to the base URL an admin bound it to');
  assert.not.ok(
    ctx.debug.some((line) => line.includes('sk-stored')),
    'never in a log line',
  );
});

test('a provider that refuses is a named error in the answer, never its body; a metadata address is a refusal before any call', async ({
  models,
  fake,
}) => {
  const endpoint = await models.endpoint({
    provider: 'OLLAMA',
    baseUrl: null,
    apiKeySecret: undefined,
    apiKey: 'sk-own',
    mayRouteSecrets: false,
  });
  const limited = await models.call(
    endpoint,
    { model: 'limited', messages: [{ role: 'user', content: 'hi' }], parameters: {}, tools: [] },
    { cancelled: never },
  );
  assert.is(limited.error, 'OLLAMA is rate limiting this key (429 Too Many Requests)');
  try {
    await models.endpoint({
      provider: 'OLLAMA',
      baseUrl: 'http://169.254.169.254/v1',
      apiKeySecret: undefined,
      apiKey: '',
      mayRouteSecrets: false,
    });
    assert.unreachable('a metadata address is refused');
  } catch (error) {
    assert.instance(error, ModelRefusal);
    assert.is((error as ModelRefusal).code, 'base_url_not_allowed');
    assert.is((error as ModelRefusal).kind, 'forbidden');
  }
  assert.is(fake.received.length, 1, 'the refused call never left');
});

test.run();
