import { randomBytes } from 'node:crypto';
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Position } from '../../../domain/eventstore/types.ts';
import { createUser } from '../../../domain/identity/createUser.ts';
import { normaliseEmail } from '../../../domain/identity/email.ts';
import { findUser } from '../../../projections/identity/userQueries.ts';
import { appUrl } from '../../identity/appUrl.ts';
import { clearSessionCookies, cookieOptions } from '../../identity/authCookies.ts';
import { welcomeMail } from '../../identity/passwordResetMail.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import {
  changeOwnPassword,
  changeOwnUsername,
  changeUserByAdmin,
  deleteUserAndKeys,
  hashNewPassword,
  userAfterChange,
} from '../../identity/userAccountCommands.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { userOf } from '../identityMappers.ts';
import { Requires } from '../requires.ts';
import { DeletionPayload } from '../deletionPayload.ts';
import { CreateUserInput, PatchUserInput, PatchViewerInput, UserMutationPayload } from '../types/identityTypes.ts';

const latest = (positions: readonly (Position | null)[]): Position | null => positions.filter((p) => p !== null).at(-1) ?? null;

const actingUserId = (ctx: GraphqlContext): string | null => (ctx.principal.kind === 'anonymous' ? null : ctx.principal.userId);

const userIdOf = (id: string, argument: string): string => {
  const userId = fromGlobalId('User', id);
  if (userId === null) throw gqlError('invalid_user_id', `Argument "${argument}": not a User id: ${JSON.stringify(id)}`);
  return userId;
};

/** The user as the read model shows it once this process has applied `position`. */
const userAfter = async (ctx: GraphqlContext, userId: string, position: Position | null): Promise<UserMutationPayload> => {
  await ctx.settle(position);
  const row = await findUser(ctx.deps.pool, userId);
  if (row === null) throw gqlError('user_not_found', 'User not found', 404);
  return { user: userOf(row) };
};

/** The identity commands REST's /v1/users and /v1/user use (one write path). */
@Resolver()
export class UserMutations {
  @Mutation(() => UserMutationPayload, { description: 'A local user must choose their own password at first login' })
  @Requires('users.manage')
  async createUser(@Ctx() ctx: GraphqlContext, @Arg('input', () => CreateUserInput) input: CreateUserInput): Promise<UserMutationPayload> {
    if (input.role === 'SYSTEM') throw gqlError('system_role_forbidden', 'Cannot create users with SYSTEM role');
    const local = input.authMethod === 'LOCAL';
    const passwordHash = local && input.password != null ? await hashNewPassword(ctx.deps, input.password) : null;
    const userId = randomBytes(12).toString('hex');
    const email = normaliseEmail(input.email);
    const result = await createUser(
      ctx.deps.store,
      {
        type: 'CreateUser',
        userId,
        username: input.username,
        email,
        role: input.role,
        authMethod: input.authMethod,
        passwordHash,
        passwordNeedsReset: local,
        oauth2ClientId: null,
        oauth2UserId: null,
        basicAuthDisabled: ctx.deps.settings.auth.disableBasicAuth,
        now: ctx.deps.identity.now().toISOString(),
      },
      ctx.command,
    );
    const payload = await userAfter(ctx, userId, result.position);
    const mailer = ctx.deps.identity.mailer;
    if (input.sendWelcomeEmail && mailer !== null) {
      // The account exists either way; a mail problem is only worth a log line.
      await mailer.send(welcomeMail(email, input.username.trim(), appUrl(ctx.koa, ctx.deps))).catch((error: Error) => {
        ctx.koa.state.log?.error({ err: { message: error.message } }, 'welcome mail could not be sent');
      });
    }
    return payload;
  }

  @Mutation(() => UserMutationPayload)
  @Requires('users.manage')
  async patchUser(@Ctx() ctx: GraphqlContext, @Arg('input', () => PatchUserInput) input: PatchUserInput): Promise<UserMutationPayload> {
    const userId = userIdOf(input.userId, 'input.userId');
    if (input.role === 'SYSTEM') throw gqlError('invalid_input', 'Argument "input.role": must be one of ADMIN, MEMBER, VIEWER');
    const byUserId = actingUserId(ctx);
    if (input.newPassword != null && byUserId === userId) {
      throw gqlError('own_password', 'Change your own password with patchViewer, which asks for the current one');
    }
    const position = await changeUserByAdmin(
      ctx.deps,
      userId,
      { role: input.role ?? undefined, username: input.username ?? undefined, password: input.newPassword ?? undefined },
      byUserId,
      ctx.command,
    );
    return { user: userOf(await userAfterChange(ctx.deps, userId, position)) };
  }

  @Mutation(() => DeletionPayload, { description: "Their sessions and personal keys end with them; built-in users can't be deleted" })
  @Requires('users.manage')
  async deleteUsers(@Ctx() ctx: GraphqlContext, @Arg('userIds', () => [ID]) userIds: string[]): Promise<DeletionPayload> {
    const ids = userIds.map((id, i) => userIdOf(id, `userIds[${i}]`));
    for (const userId of ids) await deleteUserAndKeys(ctx.deps, userId, actingUserId(ctx), ctx.command);
    return { deletedIds: ids.map((id) => toGlobalId('User', id)) };
  }

  @Mutation(() => UserMutationPayload)
  @Requires('users.self')
  async patchViewer(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => PatchViewerInput) input: PatchViewerInput,
  ): Promise<UserMutationPayload> {
    const userId = actingUserId(ctx)!;
    if (input.newPassword != null && input.currentPassword == null) {
      throw gqlError('invalid_input', 'Argument "input.currentPassword" is required when input.newPassword is given');
    }
    const positions: (Position | null)[] = [];
    if (input.newPassword != null) {
      positions.push(await changeOwnPassword(ctx.deps, userId, { current: input.currentPassword!, next: input.newPassword }, ctx.command));
      clearSessionCookies(ctx.koa, cookieOptions(ctx.deps.settings.rootPath, ctx.deps.settings.auth.secureCookies));
    }
    if (input.username != null) positions.push(await changeOwnUsername(ctx.deps, userId, input.username, ctx.command));
    return { user: userOf(await userAfterChange(ctx.deps, userId, latest(positions))) };
  }
}
