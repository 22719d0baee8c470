import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { decryptSecret } from '../../../domain/secrets/crypto.ts';
import { listSecrets } from '../../../projections/secrets/secretQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { asGraphqlError, gqlError } from '../graphqlError.ts';
import { userOf } from '../identityMappers.ts';
import { checkFirst, type Connection, END_CURSOR, stringConnection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { User } from '../types/identityTypes.ts';
import { Secret, SecretConnection } from '../types/secretTypes.ts';
import { secretOf } from '../secretMappers.ts';

@Resolver()
export class SecretQueryResolver {
  @Query(() => SecretConnection, { description: 'Secrets by key; `search` matches the key or the owner’s username or email' })
  @Requires('secrets.manage')
  async secrets(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('search', () => String, { nullable: true }) search?: string | null,
  ): Promise<Connection<Secret>> {
    const limit = checkFirst(first);
    if (after === END_CURSOR) return stringConnection([], null, 'Secret', () => '', secretOf, true);
    const afterKey = after ? fromGlobalId('Secret', after) : null;
    if (after && afterKey === null) throw gqlError('invalid_cursor', `Argument "after": invalid cursor ${JSON.stringify(after)}`);
    const page = await listSecrets(ctx.deps.pool, { search: search?.trim() || null, afterKey, limit });
    // listSecrets continues strictly after a key: each edge's cursor is its own key.
    const edges = page.secrets.map((s, i) => ({
      cursor: i === page.secrets.length - 1 && page.nextKey === null ? END_CURSOR : toGlobalId('Secret', s.key),
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
