import * as assert from 'uvu/assert';
import type { UiServer } from './uiServer.ts';

/**
 * Sets up what a browser test needs over the REST API (auth off): GET without a body, POST with
 * one; anything but a 2xx fails the test with the answer. The data is whatever the route returns.
 */
export const api = async (server: UiServer, path: string, body?: unknown) => {
  const response = await fetch(server.href(path), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
  // Route answers differ per test; each test reads what it asked for.
  return (await response.json()) as { data: any };
};
