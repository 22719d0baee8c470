import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { listUsers } from '../../../projections/identity/userQueries.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { userOf } from '../identityMappers.ts';
import { checkFirst, type Connection, END_CURSOR, stringConnection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { User, UserConnection } from '../types/identityTypes.ts';

@Resolver()
export class IdentityQueryResolver {
  @Query(() => User, { nullable: true, description: 'Who is asking; null when authentication is off' })
  @Requires('read')
  async viewer(@Ctx() ctx: GraphqlContext): Promise<User | null> {
    if (ctx.principal.kind === 'anonymous') return null;
    const row = await ctx.loaders.user.load(ctx.principal.userId);
    if (row === null) throw gqlError('user_not_found', 'User not found', 401);
    return userOf(row);
  }

  @Query(() => UserConnection, { description: 'Users, newest first' })
  @Requires('users.manage')
  async users(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<User>> {
    const limit = checkFirst(first);
    const end = after === END_CURSOR;
    const fromUserId = after ? fromGlobalId('User', after) : null;
    if (after && !end && fromUserId === null) throw gqlError('invalid_cursor', `Argument "after": invalid cursor ${JSON.stringify(after)}`);
    const page = end ? { users: [], nextUserId: null } : await listUsers(ctx.deps.pool, { fromUserId, limit });
    if (page === null) throw gqlError('invalid_cursor', `Argument "after": the cursor's user no longer exists`);
    return stringConnection(page.users, page.nextUserId, 'User', (u) => u.userId, userOf, Boolean(after));
  }
}
