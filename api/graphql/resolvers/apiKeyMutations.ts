import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { isAdmin } from '../../../domain/access/principal.ts';
import type { ApiKeyKind } from '../../../domain/apiKeys/events.ts';
import { checkApiKeyDescription, checkApiKeyExpiry, cleanApiKeyName } from '../../../domain/apiKeys/apiKeyText.ts';
import { issueApiKey } from '../../../domain/apiKeys/issueApiKey.ts';
import { revokeApiKey } from '../../../domain/apiKeys/revokeApiKey.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { settleAuthChange } from '../../http/settleAuthChange.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { apiKeyOf } from '../apiKeyMappers.ts';
import { Requires } from '../requires.ts';
import { checkArg } from './inputText.ts';
import type { SystemApiKey, UserApiKey } from '../types/apiKeyTypes.ts';
import { CreateApiKeyInput, CreateSystemApiKeyMutationPayload, CreateUserApiKeyMutationPayload } from '../types/apiKeyTypes.ts';
import { DeletionPayload } from '../deletionPayload.ts';

const TYPE: Record<ApiKeyKind, string> = { user: 'UserApiKey', system: 'SystemApiKey' };

/** Issue a key (REST's POST /v1/{user,system}/api_keys command); its value is in this answer only. */
const issue = async (ctx: GraphqlContext, kind: ApiKeyKind, input: CreateApiKeyInput) => {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') throw gqlError('auth_disabled', 'Authentication is disabled', 403);
  const now = ctx.deps.identity.now().toISOString();
  // The domain's own rules (the decider applies them again), reported against the argument.
  const name = checkArg('input.name', () => cleanApiKeyName(input.name));
  const description = checkArg('input.description', () => checkApiKeyDescription(input.description ?? null));
  const expiresAt = checkArg('input.expiresAt', () => checkApiKeyExpiry(input.expiresAt ?? null, now));
  const { keyId, value, result } = await issueApiKey(
    ctx.deps.store,
    { kind, ownerUserId: kind === 'user' ? principal.userId : null, createdBy: principal.userId, name, description, expiresAt, now },
    ctx.command,
  );
  await ctx.settle(result.position);
  return {
    key: value,
    apiKey: apiKeyOf({ keyId, kind, ownerUserId: kind === 'user' ? principal.userId : null, name, description, createdAt: now, expiresAt }),
  };
};

const revoke = async (ctx: GraphqlContext, kind: ApiKeyKind, id: string): Promise<DeletionPayload> => {
  const keyId = fromGlobalId(TYPE[kind], id);
  if (keyId === null) throw gqlError('invalid_api_key_id', `Argument "id": not a ${TYPE[kind]} id: ${JSON.stringify(id)}`);
  const p = ctx.principal;
  const result = await revokeApiKey(
    ctx.deps.store,
    {
      type: 'RevokeApiKey',
      keyId,
      kind,
      requester: { userId: p.kind === 'anonymous' ? null : p.userId, isAdmin: isAdmin(p) },
      reason: 'deleted',
      now: ctx.deps.identity.now().toISOString(),
    },
    ctx.command,
  );
  // In effect at once for authentication; listings follow shortly (as REST's deletion).
  await settleAuthChange(ctx.deps, result.position);
  return { deletedIds: [id] };
};

@Resolver()
export class ApiKeyMutations {
  @Mutation(() => CreateUserApiKeyMutationPayload, { description: 'A key acting as the caller; people in a browser session only' })
  @Requires('apikeys.own.create')
  async createUserApiKey(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<CreateUserApiKeyMutationPayload> {
    const { key, apiKey } = await issue(ctx, 'user', input);
    return { key, apiKey: apiKey as UserApiKey };
  }

  @Mutation(() => DeletionPayload, { description: "One's own key, or anyone's for admins" })
  @Requires('apikeys.own.delete')
  deleteUserApiKey(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<DeletionPayload> {
    return revoke(ctx, 'user', id);
  }

  @Mutation(() => CreateSystemApiKeyMutationPayload)
  @Requires('apikeys.system.create')
  async createSystemApiKey(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<CreateSystemApiKeyMutationPayload> {
    const { key, apiKey } = await issue(ctx, 'system', input);
    return { key, apiKey: apiKey as SystemApiKey };
  }

  @Mutation(() => DeletionPayload)
  @Requires('apikeys.system.manage')
  deleteSystemApiKey(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<DeletionPayload> {
    return revoke(ctx, 'system', id);
  }
}
