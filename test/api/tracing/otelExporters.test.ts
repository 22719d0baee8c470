process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { createClient } from '@arizeai/phoenix-client';
import { getSessionTurns, listSessions } from '@arizeai/phoenix-client/sessions';
import { getSpans } from '@arizeai/phoenix-client/spans';
import { getTraces } from '@arizeai/phoenix-client/traces';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recordConversation } from '../../support/conversation.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('OTel exporters → REST and @arizeai/phoenix-client', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const exporters: Record<string, (s: TestServer) => SpanExporter> = {
  'protobuf over HTTP (main port)': (s) => new ProtoExporter({ url: `${s.baseUrl}/v1/traces` }),
  'protobuf over HTTP (OTLP port, gzip)': (s) => new ProtoExporter({ url: s.otlpHttpUrl, compression: 'gzip' as never }),
  'JSON over HTTP': (s) => new JsonExporter({ url: `${s.baseUrl}/v1/traces` }),
  gRPC: (s) => new GrpcExporter({ url: `http://127.0.0.1:${s.grpcPort}` }),
};

let n = 0;
for (const [transport, make] of Object.entries(exporters)) {
  test(`${transport}: the spans, traces, session and its turns come back through REST and phoenix-client`, async ({ server }) => {
    const projectName = `exported-${++n}`;
    const sessionId = `conversation-${n}`;
    const exporter = make(server);
    const turns = [
      { input: 'What is Loupe?', output: 'An observability server.' },
      { input: 'Does it speak OTLP?', output: '{"answer":"yes"}', outputMimeType: 'application/json' },
    ];
    const spans = await recordConversation({ sessionId, turns, exporter, projectName });
    await exporter.shutdown();
    const client = createClient({ options: { baseUrl: server.baseUrl } });

    // Acknowledged means stored; it becomes readable once projected.
    const found = await eventually(
      () => getSpans({ client, project: { projectName }, limit: 100 }),
      (r) => r.spans.length === spans.length,
    );
    assert.is(found.spans.length, 4);
    const byId = new Map(found.spans.map((s) => [s.context.span_id, s]));
    for (const span of spans) {
      const got = byId.get(span.spanContext().spanId)!;
      assert.ok(got, `span ${span.name} is there`);
      assert.is(got.context.trace_id, span.spanContext().traceId);
      assert.is(got.name, span.name);
      assert.is(got.parent_id, span.parentSpanContext?.spanId ?? null);
      assert.is(got.span_kind, span.attributes['openinference.span.kind']);
    }

    const llm = await getSpans({ client, project: { projectName }, spanKind: 'LLM', attributes: { 'llm.model_name': 'gpt-test' } });
    assert.is(llm.spans.length, 2);
    const roots = await getSpans({ client, project: { projectName }, parentId: null, name: 'agent turn', statusCode: 'UNSET' });
    assert.is(roots.spans.length, 2);

    const traces = await getTraces({ client, project: { projectName }, includeSpans: true, sessionId, order: 'asc' });
    assert.is(traces.traces.length, 2);
    assert.equal(
      traces.traces.map((t) => t.token_count_prompt),
      [10, 11],
    );
    assert.equal(
      traces.traces.map((t) => t.spans?.length),
      [2, 2],
    );

    const sessions = await listSessions({ client, projectName });
    assert.equal(
      sessions.map((s) => s.sessionId),
      [sessionId],
    );
    assert.is(sessions[0]!.traces.length, 2);

    // phoenix-client orders turns by `startTime.localeCompare`, and ICU collation puts '.' before
    // '+': a turn that starts on a whole second ('…:03+00:00', Python's isoformat, as Phoenix
    // writes it) comes after a later turn of the same second ('…:03.006000+00:00'). The SDK stamps
    // span starts with Date.now() (whole ms), so that happened about once in a thousand turns: the
    // order is the client's, and ours is asserted on our own route below.
    const got = await getSessionTurns({ client, sessionId });
    const byTime = [...got].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
    assert.equal(
      byTime.map((t) => [t.input?.value, t.input?.mimeType, t.output?.value, t.output?.mimeType]),
      [
        ['What is Loupe?', 'text/plain', 'An observability server.', 'text/plain'],
        ['Does it speak OTLP?', 'text/plain', '{"answer":"yes"}', 'application/json'],
      ],
    );
    assert.ok(Date.parse(byTime[0]!.startTime) < Date.parse(byTime[1]!.startTime));
    const ours = (await callJson(server, 'GET', `/v1/sessions/${sessionId}/turns`)).body.data;
    assert.equal(
      ours.map((t: { trace_id: string; input: { value: string } }) => [t.trace_id, t.input.value]),
      byTime.map((t) => [t.traceId, t.input?.value]),
    );
    const session = (await callJson(server, 'GET', `/v1/sessions/${sessionId}`)).body.data;
    assert.equal([session.token_count_prompt, session.token_count_completion, session.token_count_total], [21, 10, 31]);
  });
}

test.run();
