import type Koa from 'koa';
import { actorOf } from '../../domain/access/actor.ts';
import type { Principal } from '../../domain/access/principal.ts';
import type { CommandContext } from '../../domain/handleCommand.ts';

/** The principal the route's guard established (null only on public routes without credentials). */
export const principalOf = (ctx: Koa.Context): Principal | null => (ctx.state.principal as Principal | null | undefined) ?? null;

/** Event metadata for a command made on behalf of this request: who, and which request. */
export const commandContextOf = (ctx: Koa.Context): CommandContext => ({
  actor: actorOf(principalOf(ctx)),
  requestId: typeof ctx.state.requestId === 'string' ? ctx.state.requestId : null,
});
