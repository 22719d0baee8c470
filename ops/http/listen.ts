import { createServer, type Server } from 'node:http';
import type Koa from 'koa';

export const listen = (koa: Koa, host: string, port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer(koa.callback());
    // A slow client must not hold an ingest budget slot forever.
    server.requestTimeout = 120_000;
    // An exporter reuses its connection after waiting out a 503's Retry-After (1-10 s). Closing
    // idle connections at Node's default of 5 s raced those reuses: the exporter wrote into a
    // connection the server was closing and got ECONNRESET (2 in a 5-minute sustained run), where
    // it should have got an answer. Clients' own idle timeouts are mostly shorter than this.
    server.keepAliveTimeout = 65_000;
    // Node wants the headers timeout above the keep-alive timeout.
    server.headersTimeout = 66_000;
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });

/** How often a closing server looks for connections that went idle since it closed. */
const CLOSE_IDLE_EVERY_MS = 50;

/**
 * Stops accepting connections and resolves once every in-flight request has been answered.
 * Idle keep-alive connections are closed at once so they do not hold the shutdown open, and so
 * is each connection whose request was in flight, once it has been answered: Node keeps such a
 * connection open until its keep-alive timeout (65 s here), which held a shutdown open that long.
 */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), CLOSE_IDLE_EVERY_MS);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
