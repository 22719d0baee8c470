import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../domain/decider.ts';
import type { Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { appendGiven, type GivenStream } from './givenStreams.ts';
import type { TestServer } from './testServer.ts';

export { GIVEN_TIME, type GivenStream, inStream } from './givenStreams.ts';

export type HttpRequest = {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
};

export type HttpOutcome = {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body; the raw text when the body is not JSON; undefined when empty. */
  readonly body: unknown;
  /** The events this request appended (type and data), in order. */
  readonly events: readonly DomainEvent[];
};

export type HttpExpectation = {
  readonly status: number;
  /** Deep-equal to the body, or a check that asserts on it (for generated ids). */
  readonly body?: unknown;
  /** Deep-equal to the events the request appended (`[]`: it appended none), or a check. */
  readonly events?: readonly DomainEvent[] | ((events: readonly DomainEvent[]) => void);
};

const readAllAfter = async (server: TestServer, after: Position): Promise<StoredEvent[]> => {
  const out: StoredEvent[] = [];
  for (let from = after; ; ) {
    const page = await server.store.readAll(from, 500);
    if (page.length === 0) return out;
    out.push(...page);
    from = page[page.length - 1]!.position;
  }
};

/**
 * given(streams).when(method, path, request).then({status, body, events}) against the whole
 * server in-process (real HTTP, real store, real projections): the given events are appended as
 * written and projected, the request is sent with its own `x-request-id`, and the events it caused
 * are found by that id in the event log's metadata, so other traffic on a shared server never
 * mixes in. Use `thenOutcome` to assert by hand.
 *
 *   await httpSpec(server)
 *     .given(inStream(projectStream('shop'), created))
 *     .when('PUT', '/v1/projects/shop', { body: { description: 'new' } })
 *     .then({ status: 200, events: [{ type: 'ProjectUpdated', data: { projectId, description: 'new' } }] });
 */
export const httpSpec = (server: TestServer) => ({
  given: (...history: readonly GivenStream[]) => ({
    when: (method: string, path: string, request: HttpRequest = {}) => {
      const outcome = async (): Promise<HttpOutcome> => {
        const given = await appendGiven(server.store, history);
        if (given !== null) await server.runner.waitFor(given, 60_000);
        const before = await server.store.headPosition();
        const requestId = randomUUID();
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: {
            'x-request-id': requestId,
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...request.headers,
          },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
        const text = await response.text();
        let body: unknown = text === '' ? undefined : text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // not JSON: keep the text, so a test can say so
        }
        // Everything committed by now is what the request wrote; wait until it is readable.
        await server.runner.waitFor(await server.store.headPosition(), 60_000);
        const events = (await readAllAfter(server, before))
          .filter((e) => e.metadata.requestId === requestId)
          .map((e) => ({ type: e.type, data: e.data }));
        return { status: response.status, headers: response.headers, body, events };
      };
      return {
        then: async (expected: HttpExpectation): Promise<HttpOutcome> => {
          const actual = await outcome();
          assert.is(actual.status, expected.status, `status (body: ${JSON.stringify(actual.body)})`);
          if (typeof expected.body === 'function') expected.body(actual.body);
          else if (expected.body !== undefined) assert.equal(actual.body, expected.body, 'body');
          if (typeof expected.events === 'function') expected.events(actual.events);
          else if (expected.events !== undefined) assert.equal(actual.events, expected.events, 'events');
          return actual;
        },
        thenOutcome: outcome,
      };
    },
  }),
});
