import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';

const VALID_INCOMING_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Gives each request an id (a well-formed `x-request-id` from a proxy is kept), a child logger
 * carrying it, the server version header the official clients read on every response, and one
 * JSON log line (debug level) when it ends. Only method, path, status and timing are logged: never headers,
 * query strings or bodies, which can carry credentials.
 */
export const requestContext =
  (logger: Logger, serverVersion: string): Koa.Middleware =>
  async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = VALID_INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    ctx.set('x-phoenix-server-version', serverVersion);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Debug level: at the default (info) a probe hitting /healthz every few seconds would bury
      // everything else; SERVICE_LOG_LEVEL=debug asks for them. Failures are logged on their own.
      ctx.state.log.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
