import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { decryptSecret } from '../../../domain/secrets/crypto.ts';
import { listApiKeys } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { listSecrets } from '../../../projections/secrets/secretQueries.ts';
import { listUsers } from '../../../projections/identity/userQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { asGraphqlError, gqlError } from '../graphqlError.ts';
import { apiKeyOf, secretOf, userOf } from '../identityMappers.ts';
import { checkFirst, type Connection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { Secret, SecretConnection, SystemApiKey, User, UserApiKey, UserConnection } from '../types/identityTypes.ts';

const END = toGlobalId('End', '0');

/** A page whose rows are keyed by strings, cursors as in relay.ts: each edge's names the row after it. */
const stringConnection = <R, T>(
  rows: readonly R[],
  next: string | null,
  type: string,
  keyOf: (r: R) => string,
  toNode: (r: R) => T,
  hasPrevious: boolean,
): Connection<T> => {
  const edges = rows.map((r, i) => {
    const following = i + 1 < rows.length ? keyOf(rows[i + 1]!) : next;
    return { cursor: following === null ? END : toGlobalId(type, following), node: toNode(r) };
  });
  return {
    edges,
    pageInfo: {
      hasNextPage: next !== null,
      hasPreviousPage: hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
};

/** The person behind the principal (null when auth is off, or for the admin secret and system keys' own keys). */
const personId = (ctx: GraphqlContext): string | null => {
  const p = ctx.principal;
  if (p.kind === 'anonymous' || p.kind === 'adminSecret' || p.role === 'SYSTEM') return null;
  return p.userId;
};

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
    const end = after === END;
    const fromUserId = after ? fromGlobalId('User', after) : null;
    if (after && !end && fromUserId === null) throw gqlError('invalid_cursor', `Argument "after": invalid cursor ${JSON.stringify(after)}`);
    const page = end ? { users: [], nextUserId: null } : await listUsers(ctx.deps.pool, { fromUserId, limit });
    if (page === null) throw gqlError('invalid_cursor', `Argument "after": the cursor's user no longer exists`);
    return stringConnection(page.users, page.nextUserId, 'User', (u) => u.userId, userOf, Boolean(after));
  }

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

  @Query(() => SecretConnection, { description: 'Secrets by key; `search` matches the key or the owner’s username or email' })
  @Requires('secrets.manage')
  async secrets(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('search', () => String, { nullable: true }) search?: string | null,
  ): Promise<Connection<Secret>> {
    const limit = checkFirst(first);
    if (after === END) return stringConnection([], null, 'Secret', () => '', secretOf, true);
    const afterKey = after ? fromGlobalId('Secret', after) : null;
    if (after && afterKey === null) throw gqlError('invalid_cursor', `Argument "after": invalid cursor ${JSON.stringify(after)}`);
    const page = await listSecrets(ctx.deps.pool, { search: search?.trim() || null, afterKey, limit });
    // listSecrets continues strictly after a key: each edge's cursor is its own key.
    const edges = page.secrets.map((s, i) => ({
      cursor: i === page.secrets.length - 1 && page.nextKey === null ? END : toGlobalId('Secret', s.key),
      node: secretOf(s),
    }));
    return {
      edges,
      pageInfo: {
        hasNextPage: page.nextKey !== null,
        hasPreviousPage: Boolean(after),
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
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

@Resolver(() => Secret)
export class SecretResolver {
  @FieldResolver(() => User, { nullable: true, description: 'Who set it last (null when that user is gone)' })
  async user(@Root() secret: Secret, @Ctx() ctx: GraphqlContext): Promise<User | null> {
    if (secret.ownerUserId === null) return null;
    const row = await ctx.loaders.user.load(secret.ownerUserId);
    return row === null ? null : userOf(row);
  }

  @FieldResolver(() => String, {
    description: 'The decrypted value. Only reachable through admin-only fields; ask for it only to reveal it.',
  })
  async value(@Root() secret: Secret, @Ctx() ctx: GraphqlContext): Promise<string> {
    const sealed = await ctx.loaders.sealedSecret.load(secret.key);
    if (sealed === null) throw gqlError('secret_not_found', `Secret ${secret.key} not found`, 404);
    try {
      return decryptSecret(ctx.deps.identity.keyring, sealed, secret.key);
    } catch (error) {
      throw asGraphqlError(error);
    }
  }
}
