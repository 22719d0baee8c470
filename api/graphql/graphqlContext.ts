import type Koa from 'koa';
import type { Principal } from '../../domain/access/principal.ts';
import type { CommandContext } from '../../domain/handleCommand.ts';
import type { AppDeps } from '../appDeps.ts';
import type { ProjectAccess } from '../http/projectAccess.ts';
import type { Settle } from '../http/readYourWrites.ts';
import type { Loaders } from './loaders.ts';

/**
 * What every resolver gets: the app's dependencies (resolvers are plain classes, no container),
 * the principal the route established (never null: a request without one is answered 401 before
 * GraphQL runs), this request's batch loaders, and the Koa context for cookies and audit metadata.
 */
export type GraphqlContext = {
  readonly deps: AppDeps;
  readonly principal: Principal;
  readonly koa: Koa.Context;
  readonly loaders: Loaders;
  readonly command: CommandContext;
  /** Read-your-writes: a mutation waits until the read models show its command (api/http/readYourWrites.ts). */
  readonly settle: Settle;
  /** What the projects are to the principal (api/http/projectAccess.ts), read once per request. */
  readonly access: ProjectAccess;
};
