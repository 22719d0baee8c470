import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { EventStore } from '../domain/eventstore/types.ts';
import { closeServer } from './http/listen.ts';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);

/**
 * Waits until the event log answers before the server starts on it. While it does not (an
 * EventStoreDB node still starting or unreachable), the server says so once in its log and keeps
 * retrying, and its HTTP port already answers: `/healthz` 200 (the process is alive) and `/readyz`
 * (and every other path) 503 naming the event log and the error, so an orchestrator sees why it is
 * not ready. Resolves with the HTTP port to serve on: the one the waiting server had, so a random
 * port (0) stays the same port.
 */
export const awaitEventLog = async (options: {
  readonly store: EventStore;
  readonly description: string;
  readonly logger: Logger;
  readonly host: string;
  readonly port: number;
  readonly rootPath: string;
  readonly retryMs?: number;
}): Promise<number> => {
  const probe = () =>
    options.store.headPosition().then(
      () => null,
      (error: unknown) => errorText(error),
    );
  let problem = await probe();
  if (problem === null) return options.port;
  const retryMs = options.retryMs ?? 2000;
  options.logger.error(
    { eventLog: options.description, error: problem, port: options.port },
    `event log unreachable at ${options.description} (${problem}); retrying every ${retryMs / 1000} s, /readyz answers 503 until it answers`,
  );
  const waiting: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const alive = path === '/healthz' || path === `${options.rootPath}/healthz`;
    res.writeHead(alive ? 200 : 503, { 'content-type': 'application/json', 'retry-after': String(Math.ceil(retryMs / 1000)) });
    res.end(
      JSON.stringify(
        alive
          ? { status: 'ok' }
          : {
              status: 'unavailable',
              problems: [`event log unreachable at ${options.description}: ${problem}; retrying`],
              code: 'event_log_unavailable',
            },
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    waiting.once('error', reject);
    waiting.listen(options.port, options.host, resolve);
  });
  const port = (waiting.address() as AddressInfo).port;
  try {
    while (problem !== null) {
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      problem = await probe();
    }
  } finally {
    await closeServer(waiting);
  }
  options.logger.info({ eventLog: options.description }, `event log at ${options.description} answers; starting`);
  return port;
};
