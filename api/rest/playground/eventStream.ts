import { PassThrough } from 'node:stream';
import type Koa from 'koa';

/** A Server-Sent Events response: headers go out when the handler returns, events as they come. */
export const openEventStream = (ctx: Koa.Context): PassThrough => {
  const out = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;
  return out;
};

export const sse = (out: PassThrough, event: Record<string, unknown>): void => {
  if (!out.writableEnded) out.write(`data: ${JSON.stringify(event)}\n\n`);
};
