import { type AttributeValue, attributesFrom, type Attributes } from '../tracing/attributes.ts';
import { buildSpanRecord } from '../tracing/buildSpanRecord.ts';
import type { SpanBatch } from '../tracing/events.ts';
import type { ChatMessage, TokenUsage, ToolCall } from '../modelCalls/modelCall.ts';

// The message shapes are the model port's; named here too for the code that builds playground spans.
export type { ChatMessage, TokenUsage, ToolCall };

/** The project every playground run is recorded in, created on first use like any ingested project. */
export const PLAYGROUND_PROJECT = 'playground';

/** What one playground run sent and got back; ids and times are chosen by the caller (this stays pure). */
export type PlaygroundRun = {
  readonly traceId: string;
  readonly spanId: string;
  readonly startUnixNano: bigint;
  readonly endUnixNano: bigint;
  /** OpenInference `llm.provider`, lower case: `openai`, `anthropic`, ... */
  readonly provider: string;
  readonly modelName: string;
  readonly messages: readonly ChatMessage[];
  readonly invocationParameters: Readonly<Record<string, unknown>>;
  readonly tools: readonly unknown[];
  readonly variables: Readonly<Record<string, unknown>>;
  readonly output: { readonly text: string; readonly toolCalls: readonly ToolCall[] };
  readonly usage: TokenUsage | null;
  /** The message shown to the user when the provider failed; the span's status is then ERROR. */
  readonly error: string | null;
};

/** A message in the snake_case shape instrumented applications log as their input. */
const wireMessage = (m: ChatMessage) => ({
  role: m.role,
  content: m.content,
  ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {}),
  ...(m.toolCalls !== undefined && m.toolCalls.length > 0
    ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
    : {}),
});

const str = (s: string): AttributeValue => ({ str: s });
const int = (n: number): AttributeValue => ({ int: String(Math.trunc(n)) });

/**
 * The run as one OpenInference LLM span (flattened `llm.input_messages.<i>.message.*` keys, as the
 * OpenInference instrumentations send them), so it is shown, searched and opened in the
 * playground again exactly like a span exported by an instrumented application.
 */
export const playgroundSpanAttributes = (run: PlaygroundRun): Attributes => {
  const pairs: [string, AttributeValue][] = [
    ['openinference.span.kind', str('LLM')],
    ['llm.provider', str(run.provider)],
    ['llm.system', str(run.provider)],
    ['llm.model_name', str(run.modelName)],
    ['llm.invocation_parameters', str(JSON.stringify(run.invocationParameters))],
    ['input.value', str(JSON.stringify({ messages: run.messages.map(wireMessage) }))],
    ['input.mime_type', str('application/json')],
    ['llm.prompt_template.variables', str(JSON.stringify(run.variables))],
  ];
  run.messages.forEach((m, i) => {
    pairs.push([`llm.input_messages.${i}.message.role`, str(m.role)]);
    pairs.push([`llm.input_messages.${i}.message.content`, str(m.content)]);
    if (m.toolCallId !== undefined) pairs.push([`llm.input_messages.${i}.message.tool_call_id`, str(m.toolCallId)]);
    (m.toolCalls ?? []).forEach((call, j) => {
      const at = `llm.input_messages.${i}.message.tool_calls.${j}.tool_call`;
      pairs.push([`${at}.id`, str(call.id)], [`${at}.function.name`, str(call.name)], [`${at}.function.arguments`, str(call.arguments)]);
    });
  });
  run.tools.forEach((tool, i) => pairs.push([`llm.tools.${i}.tool.json_schema`, str(JSON.stringify(tool))]));
  if (run.error === null) {
    pairs.push(['output.value', str(run.output.text)], ['output.mime_type', str('text/plain')]);
    pairs.push(['llm.output_messages.0.message.role', str('assistant')]);
    pairs.push(['llm.output_messages.0.message.content', str(run.output.text)]);
    run.output.toolCalls.forEach((call, j) => {
      const at = `llm.output_messages.0.message.tool_calls.${j}.tool_call`;
      pairs.push([`${at}.id`, str(call.id)], [`${at}.function.name`, str(call.name)], [`${at}.function.arguments`, str(call.arguments)]);
    });
  }
  if (run.usage !== null) {
    pairs.push(['llm.token_count.prompt', int(run.usage.prompt)]);
    pairs.push(['llm.token_count.completion', int(run.usage.completion)]);
    pairs.push(['llm.token_count.total', int(run.usage.total)]);
  }
  return attributesFrom(pairs);
};

/** The batch `ingestSpans` stores for one run: one root LLM span in the playground project. */
export const playgroundSpanBatch = (run: PlaygroundRun): SpanBatch => {
  const built = buildSpanRecord(
    {
      traceId: run.traceId,
      spanId: run.spanId,
      parentSpanId: '',
      name: run.provider === 'anthropic' ? 'Anthropic Messages' : 'ChatCompletion',
      kind: 1, // INTERNAL, as OpenInference instrumentations report LLM calls
      startTimeUnixNano: run.startUnixNano,
      endTimeUnixNano: run.endUnixNano,
      attributes: playgroundSpanAttributes(run),
      events: [],
      status: run.error === null ? { code: 1, message: '' } : { code: 2, message: run.error },
    },
    0,
  );
  // The ids and times come from the route, never from a client: a refusal is a bug, not bad input.
  if (!built.ok) throw new Error(`playground span refused: ${built.reason}`);
  return { projectName: PLAYGROUND_PROJECT, resources: [attributesFrom([['service.name', str('loupe-playground')]])], spans: [built.span] };
};
