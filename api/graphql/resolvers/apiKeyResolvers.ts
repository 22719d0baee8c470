import { Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { listApiKeys } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { apiKeyOf } from '../apiKeyMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { userOf } from '../identityMappers.ts';
import { Requires } from '../requires.ts';
import { SystemApiKey, UserApiKey } from '../types/apiKeyTypes.ts';
import { User } from '../types/identityTypes.ts';

/** The person behind the principal (null when auth is off, or for the admin secret and system keys' own keys). */
const personId = (ctx: GraphqlContext): string | null => {
  const p = ctx.principal;
  if (p.kind === 'anonymous' || p.kind === 'adminSecret' || p.role === 'SYSTEM') return null;
  return p.userId;
};

@Resolver()
export class ApiKeyQueryResolver {
  @Query(() => [UserApiKey], { description: "The caller's own user API keys (none for system principals)" })
  @Requires('apikeys.own.list')
  async viewerApiKeys(@Ctx() ctx: GraphqlContext): Promise<UserApiKey[]> {
    const person = personId(ctx);
    return person === null
      ? []
      : (await listApiKeys(ctx.deps.pool, { kind: 'user', ownerUserId: person })).map((k) => apiKeyOf(k) as UserApiKey);
  }

  @Query(() => [UserApiKey], { description: "Every user's API keys, newest first" })
  @Requires('apikeys.users.manage')
  async userApiKeys(@Ctx() ctx: GraphqlContext): Promise<UserApiKey[]> {
    return (await listApiKeys(ctx.deps.pool, { kind: 'user' })).map((k) => apiKeyOf(k) as UserApiKey);
  }

  @Query(() => [SystemApiKey])
  @Requires('apikeys.system.manage')
  async systemApiKeys(@Ctx() ctx: GraphqlContext): Promise<SystemApiKey[]> {
    return (await listApiKeys(ctx.deps.pool, { kind: 'system' })).map((k) => apiKeyOf(k) as SystemApiKey);
  }
}

@Resolver(() => UserApiKey)
export class UserApiKeyResolver {
  @FieldResolver(() => User, { nullable: true, description: 'The owner' })
  async user(@Root() key: UserApiKey, @Ctx() ctx: GraphqlContext): Promise<User | null> {
    const row = await ctx.loaders.user.load(key.ownerUserId);
    return row === null ? null : userOf(row);
  }
}
