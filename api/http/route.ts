import type Koa from 'koa';
import type { Responses } from './answer.ts';
import type { Permission } from '../../domain/access/permissions.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One HTTP route. `permission` is mandatory: the authorization wrapper checks it before the
 * body is read (401 → 403 → 422), and the route-matrix test fails for a /v1 route without one.
 * `public` is for routes open to everyone even with auth on (health, login).
 */
export type RouteDef = {
  readonly method: HttpMethod;
  /** @koa/router path, relative to the root path, e.g. `/v1/projects/:project_identifier`. */
  readonly path: string;
  readonly permission: Permission | 'public';
  /** `json` (default for POST/PUT/PATCH) parses a JSON body; `raw` leaves the stream unread. */
  readonly body?: 'json' | 'raw' | 'none';
  /** What a REST route answers per status (restRoute.ts); the kit checks it in tests. */
  readonly responses?: Responses;
  readonly handler: (ctx: Koa.Context) => Promise<void> | void;
};
