import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { z } from 'zod';
import type { Principal } from '../../domain/access/principal.ts';
import { revokeApiKey } from '../../domain/apikeys/revokeApiKey.ts';
import { DomainError } from '../../domain/errors.ts';
import { changeUsername } from '../../domain/identity/changeUsername.ts';
import { createUser } from '../../domain/identity/createUser.ts';
import { deleteUser } from '../../domain/identity/deleteUser.ts';
import { normaliseEmail } from '../../domain/identity/email.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import { checkPassword } from '../../domain/identity/passwordPolicy.ts';
import { parseAssignableRole } from '../../domain/identity/roles.ts';
import type { Position } from '../../domain/eventstore/types.ts';
import { listApiKeys } from '../../projections/apiKeys/apiKeyQueries.ts';
import { findUser, listUsers } from '../../projections/users/userQueries.ts';
import type { AppDeps } from '../appDeps.ts';
import { appUrl } from '../auth/appUrl.ts';
import { clearSessionCookies, cookieOptions } from '../auth/authCookies.ts';
import { welcomeMail } from '../auth/passwordResetMail.ts';
import { commandContextOf, principalOf } from '../http/commandContextOf.ts';
import { fromGlobalId } from '../http/globalId.ts';
import { HttpError } from '../http/httpError.ts';
import { parseBody, parseQuery } from '../http/parseBody.ts';
import type { RouteDef } from '../http/route.ts';
import { settle } from '../http/settle.ts';
import { userGlobalId, userJson } from './userJson.ts';

const newUserId = (): string => randomBytes(12).toString('hex');

const actingUserId = (ctx: Koa.Context): string | null => {
  const principal: Principal | null = principalOf(ctx);
  return principal === null || principal.kind === 'anonymous' ? null : principal.userId;
};

const latest = (positions: readonly (Position | null)[]): Position | null => positions.filter((p) => p !== null).at(-1) ?? null;

/** Answers with the user as the read model shows it once this process has applied `position`. */
const respondWithUser = async (ctx: Koa.Context, deps: AppDeps, userId: string, position: Position | null, status = 200) => {
  await settle(deps.runner, position);
  const user = await findUser(deps.pool, userId);
  if (user === null) throw new HttpError(404, 'user_not_found', 'User not found');
  ctx.status = status;
  ctx.body = { data: userJson(user) };
};

const userIdParam = (ctx: Koa.Context): string => {
  const raw = String(ctx.params.user_id);
  const id = fromGlobalId('User', raw);
  if (id === null) throw new HttpError(422, 'invalid_user_id', `Invalid User GlobalID format: ${raw}`);
  return id;
};

const hashPassword = async (deps: AppDeps, password: string): Promise<string> => {
  checkPassword(password, deps.settings.auth.passwordRule);
  return deps.identity.passwords.hash(password);
};

/** `GET /v1/user`: whoever is asking (a key's owner; the system user for the admin secret). */
const getViewer = (deps: AppDeps): RouteDef => ({
  method: 'GET',
  path: '/v1/user',
  permission: 'read',
  handler: async (ctx) => {
    const userId = actingUserId(ctx);
    if (userId === null) {
      ctx.body = { data: { auth_method: 'ANONYMOUS' } };
      return;
    }
    const user = await findUser(deps.pool, userId);
    if (user === null) throw new HttpError(401, 'user_not_found', 'User not found');
    ctx.body = { data: userJson(user) };
  },
});

const patchViewerBody = z.object({
  username: z.string().optional(),
  /** Required with `new_password`: a stolen session alone cannot take the account over. */
  current_password: z.string().optional(),
  new_password: z.string().optional(),
});

/**
 * `PATCH /v1/user`: change one's own username and/or password (the reference does this through
 * GraphQL `patchViewer`; this is its REST equivalent). A new password ends every session,
 * this browser's included.
 */
const patchViewer = (deps: AppDeps): RouteDef => ({
  method: 'PATCH',
  path: '/v1/user',
  permission: 'users.self',
  handler: async (ctx) => {
    const body = parseBody(ctx, patchViewerBody);
    const userId = actingUserId(ctx)!;
    const context = commandContextOf(ctx);
    const now = deps.identity.now().toISOString();
    if (body.new_password !== undefined && body.current_password === undefined) {
      throw new HttpError(422, 'invalid_body', 'body.current_password: Required when new_password is given');
    }
    const positions: (Position | null)[] = [];
    if (body.new_password !== undefined) {
      const passwordHash = await hashPassword(deps, body.new_password);
      const state = await loadUser(deps.store, userId);
      const current = state.passwordHash;
      const matches = current === null ? await deps.identity.passwords.verifyNothing(body.current_password!) : await deps.identity.passwords.verify(current, body.current_password!);
      const result = await handleUserCommand(
        deps.store,
        { type: 'ChangePassword', userId, passwordHash, by: { kind: 'self', currentPassword: { matches, verifiedHash: current } }, now },
        context,
      );
      positions.push(result.position);
      clearSessionCookies(ctx, cookieOptions(deps.settings.rootPath, deps.settings.auth.secureCookies));
    }
    if (body.username !== undefined) {
      positions.push((await changeUsername(deps.store, { type: 'ChangeUsername', userId, username: body.username, now }, context)).position);
    }
    await respondWithUser(ctx, deps, userId, latest(positions));
  },
});

const listQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().positive().default(100),
});

/** `GET /v1/users`: newest first; `cursor` is the id of the first user of the page wanted. */
const getUsers = (deps: AppDeps): RouteDef => ({
  method: 'GET',
  path: '/v1/users',
  permission: 'users.manage',
  handler: async (ctx) => {
    const query = parseQuery(ctx, listQuery);
    const fromUserId = query.cursor === undefined ? null : fromGlobalId('User', query.cursor);
    const page = query.cursor !== undefined && fromUserId === null ? null : await listUsers(deps.pool, { fromUserId, limit: query.limit });
    if (page === null) throw new HttpError(422, 'invalid_cursor', `Invalid cursor format: ${query.cursor}`);
    ctx.body = { data: page.users.map(userJson), next_cursor: page.nextUserId === null ? null : userGlobalId(page.nextUserId) };
  },
});

const createUserBody = z.object({
  user: z.object({
    email: z.string(),
    username: z.string(),
    role: z.string(),
    auth_method: z.enum(['LOCAL', 'OAUTH2', 'LDAP']),
    password: z.string().optional(),
    oauth2_client_id: z.string().optional(),
    oauth2_user_id: z.string().optional(),
  }),
  send_welcome_email: z.boolean().default(true),
});

/**
 * `POST /v1/users`: the new user must choose their own password at first login. Without a
 * password a local user has none usable and signs in after a password reset.
 */
const postUser = (deps: AppDeps): RouteDef => ({
  method: 'POST',
  path: '/v1/users',
  permission: 'users.manage',
  handler: async (ctx) => {
    const { user, send_welcome_email } = parseBody(ctx, createUserBody);
    if (user.role.trim().toUpperCase() === 'SYSTEM') throw new HttpError(400, 'system_role_forbidden', 'Cannot create users with SYSTEM role');
    const role = parseAssignableRole(user.role);
    if (role === null) throw new HttpError(422, 'invalid_body', `body.user.role: must be one of ADMIN, MEMBER, VIEWER`);
    const local = user.auth_method === 'LOCAL';
    const passwordHash = local && user.password !== undefined ? await hashPassword(deps, user.password) : null;
    const userId = newUserId();
    const email = normaliseEmail(user.email);
    const result = await createUser(
      deps.store,
      {
        type: 'CreateUser',
        userId,
        username: user.username,
        email,
        role,
        authMethod: user.auth_method,
        passwordHash,
        passwordNeedsReset: local,
        oauth2ClientId: user.oauth2_client_id ?? null,
        oauth2UserId: user.oauth2_user_id ?? null,
        basicAuthDisabled: deps.settings.auth.disableBasicAuth,
        now: deps.identity.now().toISOString(),
      },
      commandContextOf(ctx),
    );
    await respondWithUser(ctx, deps, userId, result.position, 201);
    const mailer = deps.identity.mailer;
    if (send_welcome_email && mailer !== null) {
      // The account exists either way; a mail problem is only worth a log line.
      await mailer.send(welcomeMail(email, user.username.trim(), appUrl(ctx, deps))).catch((error: Error) => {
        ctx.state.log?.error({ err: { message: error.message } }, 'welcome mail could not be sent');
      });
    }
  },
});

const patchUserBody = z.object({ username: z.string().optional(), password: z.string().optional(), role: z.string().optional() });

/** `PATCH /v1/users/{user_id}`: an admin changes another user's role, username or password. */
const patchUser = (deps: AppDeps): RouteDef => ({
  method: 'PATCH',
  path: '/v1/users/:user_id',
  permission: 'users.manage',
  handler: async (ctx) => {
    const userId = userIdParam(ctx);
    const body = parseBody(ctx, patchUserBody);
    const role = body.role === undefined ? undefined : parseAssignableRole(body.role);
    if (role === null) throw new HttpError(422, 'invalid_body', 'body.role: must be one of ADMIN, MEMBER, VIEWER');
    const byUserId = actingUserId(ctx);
    if (body.password !== undefined && byUserId === userId) {
      throw new HttpError(400, 'own_password', 'Change your own password with PATCH /v1/user, which asks for the current one');
    }
    if ((await loadUser(deps.store, userId)).status !== 'active') throw new HttpError(404, 'user_not_found', 'User not found');
    const context = commandContextOf(ctx);
    const now = deps.identity.now().toISOString();
    const positions: (Position | null)[] = [];
    if (role !== undefined) {
      positions.push((await handleUserCommand(deps.store, { type: 'ChangeRole', userId, role, byUserId, now }, context)).position);
    }
    if (body.username !== undefined) {
      positions.push((await changeUsername(deps.store, { type: 'ChangeUsername', userId, username: body.username, now }, context)).position);
    }
    if (body.password !== undefined) {
      const passwordHash = await hashPassword(deps, body.password);
      positions.push((await handleUserCommand(deps.store, { type: 'ChangePassword', userId, passwordHash, by: { kind: 'admin' }, now }, context)).position);
    }
    await respondWithUser(ctx, deps, userId, latest(positions));
  },
});

/** `DELETE /v1/users/{user_id}`: the user's sessions and personal keys end with them. */
const removeUser = (deps: AppDeps): RouteDef => ({
  method: 'DELETE',
  path: '/v1/users/:user_id',
  permission: 'users.manage',
  handler: async (ctx) => {
    const userId = userIdParam(ctx);
    const keys = await listApiKeys(deps.pool, { kind: 'user', ownerUserId: userId });
    const context = commandContextOf(ctx);
    const now = deps.identity.now().toISOString();
    const result = await deleteUser(deps.store, { type: 'DeleteUser', userId, now }, context);
    // UserDeleted already ends the keys; revoking them too keeps each key's own stream truthful.
    for (const key of keys) {
      await revokeApiKey(
        deps.store,
        { type: 'RevokeApiKey', keyId: key.keyId, kind: 'user', requester: { userId: actingUserId(ctx), isAdmin: true }, reason: 'owner_deleted', now },
        context,
      ).catch((error: unknown) => {
        if (!(error instanceof DomainError)) throw error;
      });
    }
    await settle(deps.runner, result.position);
    ctx.status = 204;
  },
});

export const userRoutes = (deps: AppDeps): RouteDef[] => [
  getViewer(deps),
  patchViewer(deps),
  getUsers(deps),
  postUser(deps),
  patchUser(deps),
  removeUser(deps),
];
