import { createServer, type Server } from 'node:http';
import type Koa from 'koa';

export const listen = (koa: Koa, host: string, port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer(koa.callback());
    // A slow client must not hold an ingest budget slot forever.
    server.requestTimeout = 120_000;
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });

/**
 * Stops accepting connections and resolves once every in-flight request has been answered.
 * Idle keep-alive connections are closed at once so they do not hold the shutdown open.
 */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
