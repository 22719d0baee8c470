import type { Readable } from 'node:stream';
import type { z } from 'zod';

/**
 * What a route may answer per status, declared next to its path (restRoute.ts):
 * - a zod schema: a JSON body of that shape (the kit checks it in tests and dev);
 * - `NO_CONTENT`: no body (204);
 * - `rawBody(type)`: the escape hatch for what is not one JSON value (a download, a CSV, an
 *   event stream): the handler returns `raw(...)` and the kit sends its bytes or stream as is.
 */
export type ResponseSpec = z.ZodType | typeof NO_CONTENT | RawBodySpec;
export type Responses = Readonly<Partial<Record<number, ResponseSpec>>>;

export const NO_CONTENT = { kind: 'no_content' } as const;
export type RawBodySpec = { readonly kind: 'raw'; readonly type: string };
export const rawBody = (type: string): RawBodySpec => ({ kind: 'raw', type });

/** Response headers; a list is sent as repeated headers (`set-cookie`). */
type Headers = Readonly<Record<string, string | readonly string[]>>;

/** A JSON answer with a status other than the route's first declared one, or with headers. */
export class JsonAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Headers = {},
  ) {}
}

/** Bytes or a stream sent as they are, with their content type (the `rawBody` escape hatch). */
export class RawAnswer {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly body: string | Buffer | Readable,
    readonly headers: Headers = {},
  ) {}
}

export type Answer = JsonAnswer | RawAnswer;

/** `return answer(201, { data })`: the status (declared in `responses`), the body, headers. */
export const answer = (status: number, body: unknown, headers?: Headers): JsonAnswer => new JsonAnswer(status, body, headers);

/** `return raw({ type: 'text/csv', body, headers })`: for a route declaring `rawBody(type)`. */
export const raw = (options: {
  readonly status?: number;
  readonly type: string;
  readonly body: string | Buffer | Readable;
  readonly headers?: Headers;
}): RawAnswer => new RawAnswer(options.status ?? 200, options.type, options.body, options.headers);

/** A download's `content-disposition`, the file name escaped as RFC 5987 asks. */
export const attachmentNamed = (fileName: string): Record<string, string> => ({
  'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`,
});

/** JSON bodies the declared schemas allow, as a handler may return them (the first 2xx status's or any other's). */
export type JsonBodyOf<R extends Responses> = { [K in keyof R]: R[K] extends z.ZodType ? z.input<R[K]> : never }[keyof R];
