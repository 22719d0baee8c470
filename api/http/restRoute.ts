import type Koa from 'koa';
import type { z } from 'zod';
import { restPermission } from '../../domain/access/restPermission.ts';
import type { Position } from '../../domain/eventstore/types.ts';
import { ProjectionTimeoutError, type ProjectionRunner } from '../../projections/projectionRunner.ts';
import { httpErrorOf } from './httpErrorOf.ts';
import { type ProjectAccess, projectAccessOf } from './projectAccess.ts';
import { parseBody, parseQuery } from './parseBody.ts';
import { rejectNulChars } from './rejectNulChars.ts';
import type { HttpMethod, RouteDef } from './route.ts';

/** What a command returns: its position, or a result carrying it (null: it appended nothing). */
export type Written = Position | null | { readonly position: Position | null };

/** What a route's handler gets: the request, already checked and parsed, and read-your-writes. */
export type RestRequest<Query, Body> = {
  readonly ctx: Koa.Context;
  /** Path parameters, NUL-free. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  readonly body: Body;
  /** Runs a command and waits until this process's read models show it, so the next read sees it. */
  readonly command: <R extends Written>(run: () => Promise<R>) => Promise<R>;
  /**
   * Waits until the read models show what was written. `whenSlow: 'answer'` is for writes Phoenix
   * only queues: they are stored either way, so a slow read model must not become an error and a resend.
   */
  readonly settle: (written: Written, options?: { readonly whenSlow?: 'fail' | 'answer' }) => Promise<void>;
  /**
   * The project dimension of this route's permission, for the project it acts on once known:
   * throws `notFound()` when the project is hidden from the caller, 403 when the caller's role
   * there does not hold the route's permission. Every handler acting on a project calls it
   * (resolveProject does for `{project_identifier}`).
   */
  readonly requireProject: RequireProject;
  /** Hidden projects' row ids and standings, for SQL predicates (`visibleProjects`). */
  readonly access: () => Promise<ProjectAccess>;
};

export type RequireProject = (projectRowid: number | null, notFound: () => Error) => Promise<void>;

type BodyOption = z.ZodType | 'json' | 'raw';
type BodyOf<B> = B extends z.ZodType ? z.infer<B> : B extends 'json' ? unknown : undefined;
type QueryOf<Q> = Q extends z.ZodType ? z.infer<Q> : undefined;

/**
 * One REST route, declared in one place: method, path, the query and body schemas (zod) and,
 * where it helps the reader, the response's. Shaped after Langfuse's public API routes (a route
 * object with its schemas and one handler), written for Koa and our permission table.
 */
export type RestRouteSpec<Q extends z.ZodType | undefined, B extends BodyOption | undefined, Res extends z.ZodType | undefined> = {
  readonly method: HttpMethod;
  /** @koa/router path, e.g. `/v1/projects/:project_identifier`. */
  readonly path: string;
  /** Query parameters: a 422 `invalid_query` naming the parameter when they do not fit. */
  readonly query?: Q;
  /**
   * The JSON body's schema (422 `invalid_body` naming the field), `json` for a JSON body the
   * handler checks itself, `raw` for a body left unread (streamed uploads). None: no body.
   */
  readonly body?: B;
  /** The answer's shape: the handler's return value must fit it (checked by the compiler). */
  readonly response?: Res;
  /**
   * Returns the JSON answer (status 200 unless the handler set another), or nothing when it
   * answered through `ctx` itself (204, CSV, a stream).
   */
  readonly handler: (
    request: RestRequest<QueryOf<Q>, BodyOf<B>>,
  ) => Promise<(Res extends z.ZodType ? z.input<Res> : unknown) | undefined> | (Res extends z.ZodType ? z.input<Res> : unknown) | undefined;
};

const positionOf = (written: Written): Position | null =>
  written !== null && typeof written === 'object' && 'position' in written ? written.position : (written as Position | null);

/**
 * The REST route kit. For every route: the permission from THE table
 * (`domain/access/restPermission.ts` over `domain/access/permissions.ts`, checked before the body
 * is read), NUL characters refused, query then body parsed, the handler run, read-your-writes
 * settled through `command`/`settle`, and every `DomainError` answered by the one map in
 * `httpErrorOf.ts`.
 *
 *   const route = routeKit(deps);
 *   route({ method: 'GET', path: '/v1/projects', query: listQuery, handler: async ({ query }) => page(...) });
 */
export const routeKit = (deps: { readonly runner: ProjectionRunner }) => {
  const settle: RestRequest<unknown, unknown>['settle'] = async (written, options) => {
    const position = positionOf(written);
    if (position === null) return;
    try {
      await deps.runner.waitFor(position);
    } catch (error) {
      if (!(options?.whenSlow === 'answer' && error instanceof ProjectionTimeoutError)) throw error;
    }
  };
  const command = async <R extends Written>(run: () => Promise<R>): Promise<R> => {
    const result = await run();
    await settle(result);
    return result;
  };
  return <
    Q extends z.ZodType | undefined = undefined,
    B extends BodyOption | undefined = undefined,
    Res extends z.ZodType | undefined = undefined,
  >(
    spec: RestRouteSpec<Q, B, Res>,
  ): RouteDef => {
    const permission = restPermission(spec.method, spec.path);
    return {
      method: spec.method,
      path: spec.path,
      permission,
      // No body declared: the method's default (a POST's JSON is still read, and malformed JSON is a 400).
      ...(spec.body === 'raw' ? { body: 'raw' as const } : spec.body !== undefined ? { body: 'json' as const } : {}),
      handler: async (ctx) => {
        try {
          rejectNulChars(ctx);
          const query = (spec.query === undefined ? undefined : parseQuery(ctx, spec.query)) as QueryOf<Q>;
          const body = (
            spec.body === undefined || spec.body === 'raw'
              ? undefined
              : spec.body === 'json'
                ? (ctx.request as { body?: unknown }).body
                : parseBody(ctx, spec.body)
          ) as BodyOf<B>;
          const params = (ctx.params ?? {}) as Record<string, string>;
          const access = () => projectAccessOf(ctx);
          const requireProject: RequireProject = async (rowid, notFound) => (await access()).require(rowid, permission, notFound);
          const answer = await spec.handler({ ctx, params, query, body, command, settle, requireProject, access });
          if (answer !== undefined) ctx.body = answer;
        } catch (error) {
          throw httpErrorOf(error);
        }
      },
    };
  };
};

export type Route = ReturnType<typeof routeKit>;
