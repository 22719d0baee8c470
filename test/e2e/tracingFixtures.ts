import { randomBytes } from 'node:crypto';
import type { UiServer } from './support/uiServer.ts';

/**
 * Traces for the tracing pages' browser tests, sent as an OpenTelemetry exporter would: OTLP/JSON
 * over HTTP, with OpenInference attributes (LLM messages, retrieved documents, tool calls).
 */

type Plain = string | number | boolean;
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: string;
  startMs: number;
  durationMs: number;
  attributes?: Record<string, Plain>;
  status?: 'OK' | 'ERROR';
  statusMessage?: string;
  events?: { name: string; atMs: number; attributes: Record<string, Plain> }[];
};

export const hexId = (bytes: number): string => randomBytes(bytes).toString('hex');

const value = (v: Plain) =>
  typeof v === 'string'
    ? { stringValue: v }
    : typeof v === 'boolean'
      ? { boolValue: v }
      : Number.isInteger(v)
        ? { intValue: String(v) }
        : { doubleValue: v };
const keyValues = (attributes: Record<string, Plain>) => Object.entries(attributes).map(([key, v]) => ({ key, value: value(v) }));
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

const toOtlp = (span: OtlpSpan) => ({
  traceId: span.traceId,
  spanId: span.spanId,
  ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
  name: span.name,
  kind: 1,
  startTimeUnixNano: nanos(span.startMs),
  endTimeUnixNano: nanos(span.startMs + span.durationMs),
  attributes: keyValues({ 'openinference.span.kind': span.kind, ...span.attributes }),
  status: span.status === 'ERROR' ? { code: 2, message: span.statusMessage ?? '' } : span.status === 'OK' ? { code: 1 } : {},
  events: (span.events ?? []).map((e) => ({ name: e.name, timeUnixNano: nanos(e.atMs), attributes: keyValues(e.attributes) })),
});

/** POSTs the spans as one OTLP/JSON export to the project, then waits until the pages can read them. */
export const exportSpans = async (
  server: UiServer,
  project: string,
  spans: readonly OtlpSpan[],
  headers: Record<string, string> = {},
): Promise<void> => {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': 'e2e', 'openinference.project.name': project }) },
        scopeSpans: [{ scope: { name: 'e2e' }, spans: spans.map(toOtlp) }],
      },
    ],
  };
  const response = await fetch(`${server.baseUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`OTLP export refused: ${response.status} ${await response.text()}`);
  await server.runner.waitFor(await server.store.headPosition(), 120_000);
};

const MESSAGES = [
  'How do I reset my password?',
  'What is the refund policy for annual plans?',
  'Can I export my traces to CSV?',
  'Why is my dashboard empty?',
];

/**
 * A RAG chat turn: a chain root with a retriever, an LLM call (messages, a tool call, tokens) and
 * a tool span. `error` makes the LLM span fail with an exception and a stack trace.
 */
export const chatTurn = (options: { startMs: number; index: number; sessionId?: string; error?: boolean }): OtlpSpan[] => {
  const traceId = hexId(16);
  const root = hexId(8);
  const question = `${MESSAGES[options.index % MESSAGES.length]} (#${options.index})`;
  const answer = `**Sure.** Here is what to do:\n\n1. Open *Settings*\n2. Choose **Security**\n\nSee [the docs](https://example.com/docs).`;
  const session: Record<string, Plain> = options.sessionId ? { 'session.id': options.sessionId } : {};
  const t = options.startMs;
  const latency = 400 + options.index * 37;
  return [
    {
      traceId,
      spanId: root,
      name: 'rag_query',
      kind: 'CHAIN',
      startMs: t,
      durationMs: latency,
      status: options.error ? 'ERROR' : 'OK',
      attributes: {
        ...session,
        'input.value': JSON.stringify({ question }),
        'input.mime_type': 'application/json',
        'output.value': options.error ? '' : answer,
        'output.mime_type': 'text/markdown',
      },
    },
    {
      traceId,
      spanId: hexId(8),
      parentSpanId: root,
      name: 'retrieve_docs',
      kind: 'RETRIEVER',
      startMs: t + 5,
      durationMs: 80,
      attributes: {
        'input.value': question,
        'retrieval.documents.0.document.id': 'doc-17',
        'retrieval.documents.0.document.content': 'Passwords can be reset from the sign-in page with "Forgot password".',
        'retrieval.documents.0.document.score': 0.92,
        'retrieval.documents.1.document.id': 'doc-4',
        'retrieval.documents.1.document.content': 'Admins can force a password change for any user.',
        'retrieval.documents.1.document.score': 0.71,
      },
    },
    {
      traceId,
      spanId: hexId(8),
      parentSpanId: root,
      name: 'ChatCompletion',
      kind: 'LLM',
      startMs: t + 90,
      durationMs: latency - 120,
      status: options.error ? 'ERROR' : 'OK',
      statusMessage: options.error ? 'RateLimitError: too many requests' : undefined,
      events: options.error
        ? [
            {
              name: 'exception',
              atMs: t + latency - 40,
              attributes: {
                'exception.type': 'RateLimitError',
                'exception.message': 'too many requests',
                'exception.stacktrace':
                  'Traceback (most recent call last):\n  File "app.py", line 42, in answer\n    client.chat(...)\nRateLimitError: too many requests',
              },
            },
          ]
        : [],
      attributes: {
        'llm.model_name': 'gpt-4o-mini',
        'llm.provider': 'openai',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'You are a helpful support assistant.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': question,
        'llm.output_messages.0.message.role': 'assistant',
        // A failed turn's call recorded its tool call and no text, as a tool-call-only answer is
        // recorded (empty content and output.value)
        'llm.output_messages.0.message.content': options.error ? '' : answer,
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup_account',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"user_id": 42}',
        'llm.invocation_parameters': JSON.stringify({ temperature: 0.2, max_tokens: 512 }),
        'llm.token_count.prompt': 250 + options.index,
        'llm.token_count.prompt_details.cache_read': 200,
        'llm.token_count.completion': 80,
        'llm.token_count.completion_details.reasoning': 24,
        'llm.token_count.total': 330 + options.index,
        'input.value': question,
        'output.value': options.error ? '' : answer,
      },
    },
    {
      traceId,
      spanId: hexId(8),
      parentSpanId: root,
      name: 'lookup_account',
      kind: 'TOOL',
      startMs: t + latency - 25,
      durationMs: 20,
      attributes: {
        'tool.name': 'lookup_account',
        'tool.description': 'Finds the account of a user',
        'input.value': '{"user_id": 42}',
        'input.mime_type': 'application/json',
        'output.value': '{"plan": "pro"}',
        'output.mime_type': 'application/json',
      },
    },
  ];
};

/** Span content that would run script if any of it reached the DOM as markup or as a link. */
export const hostileTrace = (startMs: number): OtlpSpan[] => {
  const traceId = hexId(16);
  const payload = [
    '# Totally normal output',
    '<img src=x onerror="window.__pwned = (window.__pwned || 0) + 1; alert(1)">',
    '[click me](javascript:window.__pwned=2;alert(2))',
    '<a href="javascript:alert(3)">raw link</a>',
    '<script>window.__pwned = 3</script>',
    '![pic](javascript:alert(4))',
    '<svg onload="alert(5)"></svg>',
  ].join('\n\n');
  return [
    {
      traceId,
      spanId: hexId(8),
      name: 'hostile <img src=x onerror=alert(6)>',
      kind: 'LLM',
      startMs,
      durationMs: 50,
      attributes: {
        'input.value': payload,
        'input.mime_type': 'text/markdown',
        'output.value': payload,
        'output.mime_type': 'text/plain',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': payload,
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.contents.0.message_content.type': 'image',
        'llm.input_messages.1.message.contents.0.message_content.image.image.url': 'javascript:alert(7)',
        'retrieval.documents.0.document.content': payload,
        'llm.token_count.prompt': 1,
        'llm.token_count.completion': 1,
      },
    },
  ];
};

/**
 * One trace of `count` spans: a root with `fanout` agents, each with a chain of children, so
 * the tree is both wide and a few levels deep.
 */
export const hugeTrace = (startMs: number, count: number): { traceId: string; spans: OtlpSpan[] } => {
  const traceId = hexId(16);
  const root = hexId(8);
  const spans: OtlpSpan[] = [
    {
      traceId,
      spanId: root,
      name: 'batch_job',
      kind: 'AGENT',
      startMs,
      durationMs: count * 2 + 100,
      attributes: { 'input.value': `process ${count} items` },
    },
  ];
  const fanout = 100;
  const kinds = ['CHAIN', 'LLM', 'TOOL', 'RETRIEVER'];
  for (let g = 0; spans.length < count; g++) {
    const groupId = hexId(8);
    spans.push({
      traceId,
      spanId: groupId,
      parentSpanId: root,
      name: `item_${g}`,
      kind: 'CHAIN',
      startMs: startMs + g * 20,
      durationMs: 19,
    });
    for (let c = 0; c < count / fanout - 1 && spans.length < count; c++) {
      spans.push({
        traceId,
        spanId: hexId(8),
        parentSpanId: groupId,
        name: `step_${g}_${c}`,
        kind: kinds[c % kinds.length]!,
        startMs: startMs + g * 20 + c * 0.15,
        durationMs: 0.1,
        ...(c === 50 ? { status: 'ERROR' as const } : {}),
      });
    }
  }
  return { traceId, spans };
};
