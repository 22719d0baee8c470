import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { TestServer } from './testServer.ts';
import { ingestSpans } from '../../domain/tracing/ingestSpans.ts';
import type { SpanRecord } from '../../domain/tracing/events.ts';
import { batch } from './spanFixtures.ts';

export type JsonResponse = { status: number; body: any; text: string; headers: Headers };

/** A JSON request against the test server; the body is parsed when it is JSON. */
export const callJson = async (server: TestServer, method: string, path: string, body?: unknown): Promise<JsonResponse> => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
};

/** Stores spans as an export request would, and waits until the read models show them. */
export const seed = async (server: TestServer, projectName: string, spans: readonly SpanRecord[]): Promise<void> => {
  const position = await ingestSpans(server.store, [batch(projectName, spans)], { actor: 'test', requestId: null });
  // Generous: on a shared Postgres, any long transaction elsewhere delays visibility of new events.
  if (position) await server.runner.waitFor(position, 60_000);
};

/**
 * Polls until `check` passes (data sent over OTLP becomes visible once projected, so a client
 * may first see a 404 for a project that is still being created); the last error is rethrown.
 */
export const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await read();
      if (check(value) || Date.now() > deadline) return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

export type { ReadableSpan };
