import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedHook = { readonly path: string; readonly headers: IncomingHttpHeaders; readonly raw: string; readonly status: number };

/**
 * A real HTTP server in-process that takes webhook POSTs (a generic receiver, or Slack's incoming
 * webhooks: both are a JSON POST answered 2xx). It keeps every request with its raw body; `answer`
 * chooses each request's status (e.g. a 500 for the first attempt, to prove the retry).
 */
export const startWebhookReceiver = async (answer: (index: number, path: string) => number = () => 200) => {
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const status = answer(received.filter((r) => r.path === path).length, path);
      received.push({ path, headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Requests to one path (one destination). */
    at: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
