import { PassThrough } from 'node:stream';
import { raw, type RawAnswer, rawBody } from '../../http/answer.ts';

/** What the playground's streaming routes declare they answer. */
export const EVENT_STREAM = rawBody('text/event-stream');

/**
 * A Server-Sent Events answer: the handler returns `answer`, the kit sends the headers, and the
 * events written to `out` follow as they come.
 */
export const openEventStream = (): { readonly out: PassThrough; readonly answer: RawAnswer } => {
  const out = new PassThrough();
  return {
    out,
    answer: raw({
      type: EVENT_STREAM.type,
      body: out,
      headers: { 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' },
    }),
  };
};

export const sse = (out: PassThrough, event: Record<string, unknown>): void => {
  if (!out.writableEnded) out.write(`data: ${JSON.stringify(event)}\n\n`);
};
