import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';

export type Turn = { readonly input: string; readonly output: string; readonly outputMimeType?: string };

/**
 * A chat session recorded with the real OpenTelemetry SDK, OpenInference-style: per turn one
 * AGENT root span carrying the turn's input and output (with MIME types) and an LLM child with
 * token counts. Returns the spans in the order they ended; the exporter (if any) got them too.
 */
export const recordConversation = async (options: {
  readonly sessionId: string;
  readonly turns: readonly Turn[];
  readonly exporter?: SpanExporter;
  readonly projectName?: string;
}): Promise<ReadableSpan[]> => {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'chat-app',
      ...(options.projectName ? { 'openinference.project.name': options.projectName } : {}),
    }),
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: memory }),
      ...(options.exporter ? [new SimpleSpanProcessor({ exporter: options.exporter })] : []),
    ],
  });
  const tracer = provider.getTracer('conversation-test');
  for (const [i, turn] of options.turns.entries()) {
    const root = tracer.startSpan('agent turn', {
      kind: SpanKind.SERVER,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'session.id': options.sessionId,
        'input.value': turn.input,
        'input.mime_type': 'text/plain',
      },
    });
    const llm = tracer.startSpan(
      'llm call',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-test',
          'llm.token_count.prompt': 10 + i,
          'llm.token_count.completion': 5,
        },
      },
      trace.setSpan(context.active(), root),
    );
    llm.setStatus({ code: SpanStatusCode.OK });
    llm.end();
    root.setAttribute('output.value', turn.output);
    root.setAttribute('output.mime_type', turn.outputMimeType ?? 'text/plain');
    root.end();
    // Distinct start times, so turn order is unambiguous.
    await new Promise((r) => setTimeout(r, 5));
  }
  await provider.forceFlush();
  const spans = [...memory.getFinishedSpans()] as ReadableSpan[];
  await provider.shutdown();
  return spans;
};
