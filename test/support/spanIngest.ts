import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { comparePosition, START } from '../../domain/eventstore/types.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { TestServer } from './testServer.ts';

/** Phoenix REST span bodies and OTLP exports for the span-ingest tests, and what they left in the log. */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Phoenix's span JSON: `count` spans in traces of 10, starting now. */
export const phoenixSpans = (count: number) => {
  const now = Date.now();
  let traceId = hex(16);
  return {
    data: Array.from({ length: count }, (_, i) => {
      if (i % 10 === 0) traceId = hex(16);
      return {
        name: `s${i}`,
        context: { trace_id: traceId, span_id: hex(8) },
        span_kind: 'LLM',
        start_time: new Date(now + i).toISOString(),
        end_time: new Date(now + i + 5).toISOString(),
        status_code: 'OK',
        attributes: { 'input.value': `question ${i}` },
      };
    }),
  };
};

export const oneSpanExport = (projectName: string, input = 'q') =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'openinference.project.name', value: { stringValue: projectName } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: hex(16),
                spanId: hex(8),
                name: 'meanwhile',
                kind: 1,
                attributes: [{ key: 'input.value', value: { stringValue: input } }],
                startTimeUnixNano: `${Date.now()}000000`,
                endTimeUnixNano: `${Date.now() + 1}000000`,
              },
            ],
          },
        ],
      },
    ],
  });

/**
 * An OTLP/JSON export, retried after Retry-After while the server says it is busy, as exporters do:
 * when the first answer came (200 or 503), and when the export was acknowledged.
 */
export const exportUntilAccepted = async (
  server: TestServer,
  projectName: string,
): Promise<{ firstAnswer: number; acknowledged: number }> => {
  let firstAnswer: number | null = null;
  for (;;) {
    const answer = await fetch(server.otlpHttpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: oneSpanExport(projectName),
    });
    firstAnswer ??= Date.now();
    if (answer.status === 200) return { firstAnswer, acknowledged: Date.now() };
    assert.is(answer.status, 503, await answer.text());
    await new Promise((r) => setTimeout(r, Number(answer.headers.get('retry-after') ?? 1) * 1000));
  }
};

/**
 * Spans per SpansIngested event of the project, in log order, read through the event-store port
 * (the log may be in EventStoreDB) up to the head as it is now.
 */
export const spansIngestedFor = async (server: TestServer, projectName: string): Promise<number[]> => {
  const head = await server.store.headPosition();
  const sizes: number[] = [];
  for (let after = START; comparePosition(after, head) < 0; ) {
    const page = await server.store.readAll(after, 50);
    // Empty while an older transaction is still open (the Postgres log reads below it): wait.
    if (page.length === 0) await new Promise((r) => setTimeout(r, 50));
    for (const event of page) {
      if (isEventOf(event, ['SpansIngested']) && event.data.projectName === projectName) sizes.push(event.data.spans.length);
      after = event.position;
    }
  }
  return sizes;
};
