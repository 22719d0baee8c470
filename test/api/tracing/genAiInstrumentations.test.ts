process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPENAI_RESPONSE_MODEL, OPENAI_USAGE, type OpenAi, startOpenAi } from '../../peers/openAi.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

// Required, not imported: the instrumentations hook CommonJS `require` (require-in-the-middle),
// which needs `require.cache`, and a CommonJS module that the ES loader loads under our TypeScript
// hooks (ops/tsLoader.mjs) gets a `require` without it. An app's own CommonJS entry loads them so.
const require = createRequire(import.meta.url);
const { OpenAIInstrumentation: OtelOpenAIInstrumentation } =
  require('@opentelemetry/instrumentation-openai') as typeof import('@opentelemetry/instrumentation-openai');
const { OpenAIInstrumentation: TraceloopOpenAIInstrumentation } =
  require('@traceloop/instrumentation-openai') as typeof import('@traceloop/instrumentation-openai');

type Ctx = { server: TestServer; openAi: OpenAi };
const test = suite<Ctx>('GenAI instrumentations of the openai SDK → LLM spans', {} as Ctx);
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.openAi = await startOpenAi();
});
test.after(async (ctx) => {
  await ctx.openAi.close();
  await ctx.server.close();
});

type RestSpan = {
  name: string;
  span_kind: string;
  attributes: Record<string, unknown>;
  cost: { prompt: number; completion: number; total: number } | null;
};

const near = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

/**
 * One chat completion through the official `openai` SDK with `instrumentation` enabled, exported
 * to Loupe over OTLP into `projectName`, as an app would. The instrumentations patch the SDK's
 * CommonJS build when it is required, hence `require`; each is disabled again (unpatched) after.
 */
const tracedChat = async ({ server, openAi }: Ctx, instrumentation: Instrumentation, projectName: string): Promise<void> => {
  const exporter = new OTLPTraceExporter({ url: `${server.baseUrl}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'chat-app', 'openinference.project.name': projectName }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  instrumentation.setTracerProvider(provider);
  instrumentation.enable();
  try {
    const { OpenAI } = require('openai') as typeof import('openai');
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: openAi.baseUrl });
    const answer = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      temperature: 0.2,
    });
    assert.is(answer.choices[0]?.message.content, 'Paris.');
    await provider.forceFlush();
  } finally {
    instrumentation.disable();
    await provider.shutdown();
  }
};

const theLlmSpan = async (server: TestServer, projectName: string): Promise<RestSpan> => {
  const spans = await eventually(
    async () => (await callJson(server, 'GET', `/v1/projects/${projectName}/spans?limit=10`)).body?.data as RestSpan[] | undefined,
    (data) => (data?.length ?? 0) > 0,
  );
  assert.is(spans?.length, 1, JSON.stringify(spans));
  return spans![0]!;
};

/** What every done-when check of issue 35 asks of such a span: kind, model, provider, the usage returned, its cost at the built-in price. */
const assertPricedLlmSpan = (span: RestSpan) => {
  assert.is(span.span_kind, 'LLM');
  assert.is(span.attributes['llm.model_name'], OPENAI_RESPONSE_MODEL);
  assert.is(span.attributes['llm.provider'], 'openai');
  assert.is(span.attributes['llm.token_count.prompt'], OPENAI_USAGE.prompt_tokens);
  assert.is(span.attributes['llm.token_count.completion'], OPENAI_USAGE.completion_tokens);
  // gpt-4o-mini-2024-07-18 in the built-in table: $0.15 / 1M input, $0.60 / 1M output tokens.
  near(span.cost?.prompt, OPENAI_USAGE.prompt_tokens * 1.5e-7, 'prompt cost');
  near(span.cost?.completion, OPENAI_USAGE.completion_tokens * 6e-7, 'completion cost');
  near(span.cost?.total, OPENAI_USAGE.prompt_tokens * 1.5e-7 + OPENAI_USAGE.completion_tokens * 6e-7, 'total cost');
  assert.is(span.attributes['gen_ai.request.model'], 'gpt-4o-mini', 'the gen_ai.* attributes stay on the span');
};

test('@opentelemetry/instrumentation-openai: the chat completion is an LLM span with model, provider, tokens and cost', async (ctx) => {
  await tracedChat(ctx, new OtelOpenAIInstrumentation(), 'otel-openai');
  assertPricedLlmSpan(await theLlmSpan(ctx.server, 'otel-openai'));
});

test('@traceloop/instrumentation-openai (OpenLLMetry): the same, and its captured prompt and answer are readable messages', async (ctx) => {
  await tracedChat(ctx, new TraceloopOpenAIInstrumentation({ traceContent: true }), 'openllmetry-openai');
  const span = await theLlmSpan(ctx.server, 'openllmetry-openai');
  assertPricedLlmSpan(span);
  const text = (at: string) => span.attributes[`${at}.contents.0.message_content.text`] ?? span.attributes[`${at}.content`];
  assert.is(span.attributes['llm.input_messages.0.message.role'], 'system');
  assert.is(text('llm.input_messages.0.message'), 'Be brief.');
  assert.is(span.attributes['llm.input_messages.1.message.role'], 'user');
  assert.is(text('llm.input_messages.1.message'), 'Capital of France?');
  assert.is(text('llm.output_messages.0.message'), 'Paris.');

  // Filters and search read the derived attributes like any others.
  const filter = encodeURIComponent("span_kind == 'LLM' and llm.provider == 'openai' and cost > 0 and llm.token_count.prompt == 21");
  const filtered = await callJson(ctx.server, 'GET', `/v1/projects/openllmetry-openai/spans?filter=${filter}`);
  assert.is(filtered.body?.data?.length, 1, JSON.stringify(filtered.body));
  const found = await eventually(
    async () =>
      (await callJson(ctx.server, 'GET', '/v1/projects/openllmetry-openai/spans?search=France')).body?.data as RestSpan[] | undefined,
    (data) => (data?.length ?? 0) > 0,
  );
  assert.is(found?.length, 1, 'search finds the question in the input.value derived from its messages');
});

test.run();
