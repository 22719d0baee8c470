import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { DomainError } from '../../../domain/errors.ts';
import { secretBatchOutcome } from '../../../domain/secrets/secretBatchOutcome.ts';
import { replaceSecrets } from '../../../domain/secrets/replaceSecrets.ts';
import { cleanSecretKey, cleanSecretValue } from '../../../domain/secrets/secretKey.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { SecretEntryInput, UpsertOrDeleteSecretsMutationPayload } from '../types/secretTypes.ts';

@Resolver()
export class SecretMutations {
  @Mutation(() => UpsertOrDeleteSecretsMutationPayload, {
    description:
      'One atomic batch (REST PUT /v1/secrets): a value sets or replaces, null deletes; the last entry for a key wins. Values are never echoed.',
  })
  @Requires('secrets.manage')
  async upsertOrDeleteSecrets(
    @Ctx() ctx: GraphqlContext,
    @Arg('secrets', () => [SecretEntryInput]) secrets: SecretEntryInput[],
  ): Promise<UpsertOrDeleteSecretsMutationPayload> {
    if (secrets.length === 0) throw gqlError('invalid_input', 'Argument "secrets" must not be empty');
    const entries = secrets.map((s, i) => {
      try {
        cleanSecretKey(s.key);
        if (s.value != null) cleanSecretValue(s.value);
      } catch (error) {
        if (error instanceof DomainError) throw gqlError(error.code, `Argument "secrets[${i}]": ${error.message}`, 422);
        throw error;
      }
      return { key: s.key, value: s.value ?? null };
    });
    const p = ctx.principal;
    const result = await replaceSecrets(
      ctx.deps.store,
      ctx.deps.identity.keyring,
      { entries, userId: p.kind === 'anonymous' ? null : p.userId, now: ctx.deps.identity.now().toISOString() },
      ctx.command,
    );
    await ctx.settle(result.position);
    const outcome = secretBatchOutcome(entries);
    return { upsertedKeys: outcome.upserted, deletedKeys: outcome.deleted };
  }
}
