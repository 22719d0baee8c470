import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Attributes } from '../../../domain/tracing/attributes.ts';
import { genAiSessionId, withOpenInference } from '../../../domain/tracing/openInferenceFromGenAi.ts';
import { plainValue } from '../../../domain/tracing/renderAttributes.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

/** The span as the tracing projector will see it, from attributes as an SDK sets them. */
const converted = (plain: Parameters<typeof attrs>[0], overrides: Parameters<typeof spanRecord>[0] | object = {}) =>
  withOpenInference(spanRecord({ traceId: newTraceId(), attributes: attrs(plain), ...overrides }));

const plain = (a: Attributes) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, plainValue(v)]));

const keysUnder = (a: Attributes, prefix: string) => Object.keys(a).filter((k) => k.startsWith(prefix));

/** What @traceloop/instrumentation-openai 0.27 records around `chat.completions.create` (current GenAI names). */
const CURRENT = {
  'gen_ai.provider.name': 'openai',
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.request.temperature': 0.2,
  'gen_ai.system_instructions': '[{"type":"text","content":"Be brief."}]',
  'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Capital of France?"}]}]',
  'gen_ai.output.messages': '[{"role":"assistant","finish_reason":"stop","parts":[{"type":"text","content":"Paris."}]}]',
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  'gen_ai.usage.input_tokens': 21,
  'gen_ai.usage.output_tokens': 2,
  'gen_ai.response.finish_reasons': ['stop'],
};

test('given a span with neither gen_ai.* nor ai.* attributes, when converted, then it is the very same object', () => {
  const span = spanRecord({ traceId: newTraceId(), attributes: attrs({ 'openinference.span.kind': 'LLM', 'http.method': 'POST' }) });
  assert.is(withOpenInference(span), span);
});

test('given current-spec names, when converted, then it is an LLM span with model, provider, tokens and its messages, and the sent attributes are unchanged', () => {
  const span = converted(CURRENT);
  const a = plain(span.attributes);
  assert.is(span.spanKind, 'LLM');
  assert.is(a['llm.model_name'], 'gpt-4o-mini-2024-07-18');
  assert.is(a['llm.provider'], 'openai');
  assert.is(a['llm.token_count.prompt'], 21);
  assert.is(a['llm.token_count.completion'], 2);
  assert.is(a['llm.input_messages.0.message.role'], 'system');
  assert.is(a['llm.input_messages.0.message.contents.0.message_content.text'], 'Be brief.');
  assert.is(a['llm.input_messages.1.message.role'], 'user');
  assert.is(a['llm.input_messages.1.message.contents.0.message_content.text'], 'Capital of France?');
  assert.is(a['llm.output_messages.0.message.contents.0.message_content.text'], 'Paris.');
  assert.equal(JSON.parse(String(a['llm.invocation_parameters'])), { model: 'gpt-4o-mini', temperature: 0.2 });
  assert.ok(String(a['input.value']).includes('Capital of France?'));
  for (const [key, value] of Object.entries(attrs(CURRENT))) assert.equal(span.attributes[key], value, key);
});

test('given what @opentelemetry/instrumentation-openai records (gen_ai.system, no content), when converted, then the provider comes from gen_ai.system', () => {
  const span = converted({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.system': 'openai',
    'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
    'gen_ai.usage.input_tokens': 21,
    'gen_ai.usage.output_tokens': 2,
  });
  const a = plain(span.attributes);
  assert.is(span.spanKind, 'LLM');
  assert.is(a['llm.provider'], 'openai');
  assert.is(a['llm.system'], 'openai');
  assert.is(a['llm.token_count.prompt'], 21);
});

test("given OpenLLMetry's older names and indexed messages, when converted, then its prompt, completion, tool calls, tools and tokens read as OpenInference", () => {
  const span = converted({
    'llm.request.type': 'chat',
    'gen_ai.system': 'OpenAI',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.prompt.0.role': 'system',
    'gen_ai.prompt.0.content': 'Be brief.',
    'gen_ai.prompt.1.role': 'user',
    'gen_ai.prompt.1.content': 'Weather in Paris?',
    'gen_ai.completion.0.role': 'assistant',
    'gen_ai.completion.0.finish_reason': 'tool_calls',
    'gen_ai.completion.0.tool_calls.0.id': 'call_1',
    'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
    'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Paris"}',
    'llm.request.functions.0.name': 'get_weather',
    'llm.request.functions.0.parameters': '{"type":"object"}',
    'gen_ai.usage.prompt_tokens': 30,
    'gen_ai.usage.completion_tokens': 7,
    'llm.usage.total_tokens': 37,
    'gen_ai.usage.cache_read_input_tokens': 10,
    'gen_ai.usage.reasoning_tokens': 3,
  });
  const a = plain(span.attributes);
  assert.is(span.spanKind, 'LLM');
  assert.is(a['llm.provider'], 'openai');
  assert.is(a['llm.model_name'], 'gpt-4o-mini');
  assert.is(a['llm.input_messages.0.message.content'], 'Be brief.');
  assert.is(a['llm.input_messages.1.message.role'], 'user');
  assert.is(a['llm.input_messages.1.message.content'], 'Weather in Paris?');
  assert.equal(JSON.parse(String(a['input.value'])), [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
  ]);
  assert.is(a['llm.output_messages.0.message.tool_calls.0.tool_call.function.name'], 'get_weather');
  assert.is(a['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'], '{"city":"Paris"}');
  assert.is(a['llm.output_messages.0.message.tool_calls.0.tool_call.id'], 'call_1');
  assert.equal(JSON.parse(String(a['llm.tools.0.tool.json_schema'])), {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object' } },
  });
  assert.equal([a['llm.token_count.prompt'], a['llm.token_count.completion'], a['llm.token_count.total']], [30, 7, 37]);
  assert.is(a['llm.token_count.prompt_details.cache_read'], 10);
  assert.is(a['llm.token_count.completion_details.reasoning'], 3);
});

test('given the operation names, when converted, then execute_tool is a TOOL, invoke_agent an AGENT, embeddings an EMBEDDING span', () => {
  const tool = converted({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1' });
  assert.is(tool.spanKind, 'TOOL');
  assert.is(plain(tool.attributes)['tool.name'], 'get_weather');
  assert.is(plain(tool.attributes)['tool_call.id'], 'call_1');
  const agent = converted({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' });
  assert.is(agent.spanKind, 'AGENT');
  assert.is(plain(agent.attributes)['agent.name'], 'planner');
  assert.is(converted({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' }).spanKind, 'EMBEDDING');
  assert.is(converted({ 'llm.request.type': 'embedding', 'gen_ai.system': 'openai' }).spanKind, 'EMBEDDING');
});

test('given only a conversation id, when converted, then the span joins that session but is no LLM span', () => {
  const span = converted({ 'gen_ai.conversation.id': 'conv-7' });
  assert.is(span.spanKind, 'UNKNOWN');
  assert.is(span.sessionId, 'conv-7');
  assert.is(genAiSessionId(attrs({ 'gen_ai.conversation.id': 'conv-7' })), 'conv-7');
});

test('given both conventions, when converted, then every OpenInference value sent is kept', () => {
  const span = converted(
    {
      ...CURRENT,
      'openinference.span.kind': 'CHAIN',
      'llm.model_name': 'my-model',
      'llm.token_count.prompt': 5,
      'input.value': 'mine',
      'session.id': 'oi-session',
      'gen_ai.conversation.id': 'conv-7',
    },
    { spanKind: 'CHAIN', sessionId: 'oi-session' },
  );
  const a = plain(span.attributes);
  assert.is(span.spanKind, 'CHAIN');
  assert.is(span.sessionId, 'oi-session');
  assert.is(a['openinference.span.kind'], 'CHAIN');
  assert.is(a['llm.model_name'], 'my-model');
  assert.is(a['llm.token_count.prompt'], 5);
  assert.is(a['input.value'], 'mine');
  assert.is(a['session.id'], 'oi-session');
  assert.is(a['llm.token_count.completion'], 2, 'what OpenInference did not say is still derived');
  assert.is(genAiSessionId(span.attributes), null);
});

test('given a malformed gen_ai.input.messages (not JSON, wrong shape, 5 MB), when converted, then it stays as sent and yields no messages', () => {
  const huge = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(5 * 1024 * 1024) }] }]);
  for (const messages of ['not json [', '{"role":"user"}', '[{"role":1,"parts":"no"}, 3, null]', huge]) {
    const span = converted({ ...CURRENT, 'gen_ai.input.messages': messages, 'gen_ai.system_instructions': '' });
    assert.equal(span.attributes['gen_ai.input.messages'], { str: messages });
    assert.equal(keysUnder(span.attributes, 'llm.input_messages'), [], messages.slice(0, 20));
    assert.is(span.spanKind, 'LLM');
    if (messages === huge) assert.is(span.attributes['input.value'], undefined);
  }
});

test('given a message holding a \\u0000 escape, when converted, then the derived text is storable (U+FFFD)', () => {
  const span = converted({
    ...CURRENT,
    'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"a\\u0000b\\ud800"}]}]',
  });
  const text = plain(span.attributes)['llm.input_messages.1.message.contents.0.message_content.text'];
  assert.is(text, 'a\ufffdb\ufffd');
});

test('given a converted span, when converted again (a replay of its rows), then nothing changes', () => {
  const once = converted({ ...CURRENT, 'gen_ai.conversation.id': 'c' });
  const twice = withOpenInference(once);
  assert.equal(twice, once);
});

test("given the Vercel AI SDK's ai.* attributes without gen_ai.*, when converted, then the outer call is an AGENT and the provider call an LLM span with tokens and messages", () => {
  const outer = converted({
    'ai.operationId': 'ai.generateText',
    'operation.name': 'ai.generateText my-fn',
    'ai.model.id': 'gpt-4o-mini',
    'ai.model.provider': 'openai.chat',
    'ai.prompt': '{"prompt":"Capital of France?"}',
    'ai.response.text': 'Paris.',
    'ai.usage.promptTokens': 21,
    'ai.usage.completionTokens': 2,
    'ai.telemetry.metadata.userId': 'u1',
  });
  assert.is(outer.spanKind, 'AGENT');
  assert.is(plain(outer.attributes)['input.value'], '{"prompt":"Capital of France?"}');
  assert.is(plain(outer.attributes)['output.value'], 'Paris.');
  assert.is(plain(outer.attributes).metadata, '{"userId":"u1"}');

  const call = converted({
    'ai.operationId': 'ai.generateText.doGenerate',
    'ai.model.id': 'gpt-4o-mini',
    'ai.model.provider': 'openai.chat',
    'ai.prompt.messages':
      '[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Capital of France?"}]}]',
    'ai.prompt.tools': ['{"type":"function","name":"get_weather"}'],
    'ai.response.text': 'Paris.',
    'ai.response.toolCalls': '[{"toolCallId":"c1","toolName":"get_weather","args":{"city":"Paris"}}]',
    'ai.usage.inputTokens': 21,
    'ai.usage.outputTokens': 2,
    'ai.settings.temperature': 0.2,
  });
  const a = plain(call.attributes);
  assert.is(call.spanKind, 'LLM');
  assert.is(a['llm.model_name'], 'gpt-4o-mini');
  assert.is(a['llm.provider'], 'openai');
  assert.equal([a['llm.token_count.prompt'], a['llm.token_count.completion'], a['llm.token_count.total']], [21, 2, 23]);
  assert.is(a['llm.input_messages.0.message.content'], 'Be brief.');
  assert.is(a['llm.input_messages.1.message.contents.0.message_content.text'], 'Capital of France?');
  assert.is(a['llm.output_messages.0.message.content'], 'Paris.');
  assert.is(a['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'], '{"city":"Paris"}');
  assert.is(a['llm.tools.0.tool.json_schema'], '{"type":"function","name":"get_weather"}');
  assert.equal(JSON.parse(String(a['llm.invocation_parameters'])), { temperature: 0.2 });

  const tool = converted({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', 'ai.toolCall.args': '{"city":"Paris"}' });
  assert.is(tool.spanKind, 'TOOL');
  assert.is(plain(tool.attributes)['tool.name'], 'get_weather');
});

test('given a span with both gen_ai.* and ai.* (the AI SDK sends both on provider calls), when converted, then the GenAI names win', () => {
  const span = converted({
    'ai.operationId': 'ai.generateText.doGenerate',
    'ai.model.provider': 'openai.chat',
    'ai.usage.promptTokens': 99,
    'gen_ai.system': 'openai.chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 21,
  });
  assert.is(span.spanKind, 'LLM');
  assert.is(plain(span.attributes)['llm.token_count.prompt'], 21);
});

test.run();
