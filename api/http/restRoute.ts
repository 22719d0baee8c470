import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Principal } from '../../domain/access/principal.ts';
import { restPermission } from '../../domain/access/restPermission.ts';
import type { CommandContext } from '../../domain/handleCommand.ts';
import type { ProjectionRunner } from '../../projections/projectionRunner.ts';
import { type Answer, JsonAnswer, type JsonBodyOf, RawAnswer, type Responses } from './answer.ts';
import { checkAnswer } from './checkAnswer.ts';
import { commandContextOf, principalOf } from './commandContextOf.ts';
import { httpErrorOf } from './httpErrorOf.ts';
import { type ProjectAccess, projectAccessOf } from './projectAccess.ts';
import { parseBody, parseParams, parseQuery } from './parseBody.ts';
import { readYourWrites, type Settle, type Written } from './readYourWrites.ts';
import { rejectNulChars } from './rejectNulChars.ts';
import type { HttpMethod, RouteDef } from './route.ts';

export type { Written } from './readYourWrites.ts';

/** A request body left unread (`body: 'raw'`): the stream and its declared length, for uploads that parse as they read. */
export type RawUpload = {
  readonly stream: IncomingMessage;
  /** Content-Length, when the client sent one. */
  readonly length: number | undefined;
};

/** Where the request came in, for links sent elsewhere (a welcome mail's URL). */
export type RequestOrigin = { readonly protocol: string; readonly host: string; readonly localPort: number | undefined };

/**
 * What a route's handler gets: the request, already checked and parsed, who asks, and the means
 * to act. It never sees Koa's context: it returns its answer (architecture test restHandlers).
 */
export type RestRequest<Params, Query, Body> = {
  /** Path parameters, NUL-free (parsed by the route's `params` schema when it declares one). */
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  /** Request headers (lower-case names), for content negotiation. */
  readonly headers: IncomingHttpHeaders;
  /** Who asks: null only on public routes without credentials (or with auth off). */
  readonly principal: Principal | null;
  /** Event metadata for commands made on behalf of this request: who, and which request. */
  readonly context: CommandContext;
  /**
   * Runs a command (given this request's context) and waits until this process's read models
   * show it, so the next read sees it.
   */
  readonly command: <R extends Written>(run: (context: CommandContext) => Promise<R>) => Promise<R>;
  /**
   * Waits until the read models show what was written. `whenSlow: 'answer'` is for writes Phoenix
   * only queues: they are stored either way, so a slow read model must not become an error and a resend.
   */
  readonly settle: Settle;
  /**
   * The project dimension of this route's permission, for the project it acts on once known:
   * throws `notFound()` when the project is hidden from the caller, 403 when the caller's role
   * there does not hold the route's permission. Every handler acting on a project calls it
   * (resolveProject does for `{project_identifier}`).
   */
  readonly requireProject: RequireProject;
  /** Hidden projects' row ids and standings, for SQL predicates (`visibleProjects`). */
  readonly access: () => Promise<ProjectAccess>;
  /** Aborted when the client goes away (a stream stops producing). */
  readonly closed: AbortSignal;
  readonly origin: RequestOrigin;
  /** The request's logger (carries its id). */
  readonly log: Logger | undefined;
};

export type RequireProject = (projectRowid: number | null, notFound: () => Error) => Promise<void>;

type BodyOption = z.ZodType | 'json' | 'raw';
type BodyOf<B> = B extends z.ZodType ? z.infer<B> : B extends 'json' ? unknown : B extends 'raw' ? RawUpload : undefined;
type QueryOf<Q> = Q extends z.ZodType ? z.infer<Q> : undefined;

/** `/v1/projects/:project_identifier/spans` → `'project_identifier'`. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
type ParamsOf<Path extends string, S> = S extends z.ZodType ? z.infer<S> : { readonly [K in ParamNames<Path>]: string };

/**
 * One REST route, declared in one place: method, path, the params, query and body schemas (zod)
 * and the answer per status. Shaped after Langfuse's public API routes (a route object with its
 * schemas and one function returning the answer), written for Koa and our permission table.
 */
export type RestRouteSpec<
  Path extends string,
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends BodyOption | undefined,
  R extends Responses,
> = {
  readonly method: HttpMethod;
  /** @koa/router path, e.g. `/v1/projects/:project_identifier`. */
  readonly path: Path;
  /** Path parameters' schema when they are more than strings: a 422 `invalid_parameter` naming the parameter. */
  readonly params?: P;
  /** Query parameters: a 422 `invalid_query` naming the parameter when they do not fit. */
  readonly query?: Q;
  /**
   * The JSON body's schema (422 `invalid_body` naming the field), `json` for a JSON body the
   * handler checks itself, `raw` for a body left unread (streamed uploads). None: no body.
   */
  readonly body?: B;
  /**
   * The answers per status: a zod schema (JSON), `NO_CONTENT`, or `rawBody(type)`. A plain return
   * value is the body of the first 2xx status declared; `answer(...)`/`raw(...)` pick another.
   */
  readonly responses: R;
  readonly handler: (request: RestRequest<ParamsOf<Path, P>, QueryOf<Q>, BodyOf<B>>) => Promise<HandlerResult<R>> | HandlerResult<R>;
};

/** What a handler returns: a declared JSON body, an `answer(...)`/`raw(...)`, or nothing (204). */
type HandlerResult<R extends Responses> = JsonBodyOf<R> | Answer | undefined | void;

/** The status a plain return value is answered with: the first 2xx declared. */
const defaultStatusOf = (responses: Responses): number => {
  const success = Object.keys(responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b);
  if (success.length === 0) throw new Error('a route declares at least one 2xx response');
  return success[0]!;
};

/** Writes the handler's answer onto the response: the one place a REST answer meets Koa. */
const send = (ctx: Koa.Context, result: Answer | unknown, defaultStatus: number) => {
  const reply = result instanceof JsonAnswer || result instanceof RawAnswer ? result : new JsonAnswer(defaultStatus, result);
  for (const [k, v] of Object.entries(reply.headers)) ctx.set(k, typeof v === 'string' ? v : [...v]);
  ctx.status = reply.status;
  if (reply instanceof RawAnswer) {
    ctx.type = reply.type;
    ctx.body = reply.body;
  } else if (reply.body === undefined) {
    ctx.body = null;
  } else if (reply.body === null || typeof reply.body === 'string') {
    // Koa would answer null as 204 and a string as text: JSON's null and strings are written out.
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(reply.body);
  } else {
    ctx.body = reply.body;
  }
  if (reply.status === 204) ctx.body = null;
};

/**
 * The REST route kit: the one adapter between route declarations and @koa/router. For every
 * route: the permission from THE table (`domain/access/restPermission.ts` over
 * `domain/access/permissions.ts`, checked before the body is read), NUL characters refused,
 * params, query then body parsed, the handler run, read-your-writes settled through
 * `command`/`settle`, every `DomainError` answered by the one map in `httpErrorOf.ts`, and the
 * answer written — checked against the declared responses when `settings.checkResponses` is on
 * (tests, development).
 *
 *   const route = routeKit(deps);
 *   route({ method: 'GET', path: '/v1/projects', query: listQuery, responses: { 200: projectPage }, handler: async ({ query }) => page(...) });
 */
export const routeKit = (deps: { readonly runner: ProjectionRunner; readonly settings: { readonly checkResponses?: boolean } }) => {
  const settle = readYourWrites(deps.runner);
  return <
    Path extends string,
    R extends Responses,
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends BodyOption | undefined = undefined,
  >(
    spec: RestRouteSpec<Path, P, Q, B, R>,
  ): RouteDef => {
    const permission = restPermission(spec.method, spec.path);
    const responses: Responses = spec.responses;
    const defaultStatus = defaultStatusOf(responses);
    const where = `${spec.method} ${spec.path}`;
    return {
      method: spec.method,
      path: spec.path,
      permission,
      responses,
      // No body declared: the method's default (a POST's JSON is still read, and malformed JSON is a 400).
      ...(spec.body === 'raw' ? { body: 'raw' as const } : spec.body !== undefined ? { body: 'json' as const } : {}),
      handler: async (ctx) => {
        let result: unknown;
        try {
          rejectNulChars(ctx);
          const params = (spec.params === undefined ? (ctx.params ?? {}) : parseParams(ctx, spec.params)) as ParamsOf<Path, P>;
          const query = (spec.query === undefined ? undefined : parseQuery(ctx, spec.query)) as QueryOf<Q>;
          const body = (
            spec.body === undefined
              ? undefined
              : spec.body === 'raw'
                ? ({ stream: ctx.req, length: ctx.request.length } satisfies RawUpload)
                : spec.body === 'json'
                  ? (ctx.request as { body?: unknown }).body
                  : parseBody(ctx, spec.body)
          ) as BodyOf<B>;
          const context = commandContextOf(ctx);
          const access = () => projectAccessOf(ctx);
          let closed: AbortController | null = null;
          result = await spec.handler({
            params,
            query,
            body,
            headers: ctx.req.headers,
            principal: principalOf(ctx),
            context,
            command: async (run) => {
              const written = await run(context);
              await settle(written);
              return written;
            },
            settle,
            requireProject: async (rowid, notFound) => (await access()).require(rowid, permission, notFound),
            access,
            get closed() {
              if (closed === null) {
                const controller = new AbortController();
                ctx.res.on('close', () => controller.abort());
                closed = controller;
              }
              return closed.signal;
            },
            origin: { protocol: ctx.protocol, host: ctx.host, localPort: ctx.req.socket.localPort },
            log: ctx.state.log as Logger | undefined,
          });
        } catch (error) {
          throw httpErrorOf(error);
        }
        if (deps.settings.checkResponses) checkAnswer(where, responses, result, defaultStatus);
        send(ctx, result, defaultStatus);
      },
    };
  };
};

export type Route = ReturnType<typeof routeKit>;
