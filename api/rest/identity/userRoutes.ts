import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { z } from 'zod';
import type { Principal } from '../../../domain/access/principal.ts';
import { DomainError } from '../../../domain/errors.ts';
import { createUser } from '../../../domain/identity/createUser.ts';
import { emailTextProblem, normaliseEmail } from '../../../domain/identity/email.ts';
import { PASSWORD_MAX_LENGTH } from '../../../domain/identity/passwordPolicy.ts';
import { parseAssignableRole } from '../../../domain/identity/roles.ts';
import { cleanUsername } from '../../../domain/identity/username.ts';
import type { Position } from '../../../domain/eventstore/types.ts';
import { findUser, listUsers } from '../../../projections/identity/userQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { appUrl } from '../../identity/appUrl.ts';
import { clearSessionCookies, cookieOptions } from '../../identity/authCookies.ts';
import { plainString, ruledString } from '../../http/fieldRule.ts';
import { welcomeMail } from '../../identity/passwordResetMail.ts';
import { commandContextOf, principalOf } from '../../http/commandContextOf.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit, type Route } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { settle } from '../../http/settle.ts';
import {
  changeOwnPassword,
  changeOwnUsername,
  changeUserByAdmin,
  deleteUserAndKeys,
  hashNewPassword,
  userAfterChange,
} from '../../identity/userAccountCommands.ts';
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

/**
 * The same after a change to an existing user that may end sessions or change what their keys
 * may do (role, password, name): in effect at once whatever the read models do (see
 * settleAuthChange). Should the read model still lag, the fields the change touched are taken
 * from the user's own stream, so the answer never shows the old role.
 */
const respondWithChangedUser = async (ctx: Koa.Context, deps: AppDeps, userId: string, position: Position | null) => {
  ctx.body = { data: userJson(await userAfterChange(deps, userId, position)) };
};

const userIdParam = (ctx: Koa.Context): string => {
  const raw = String(ctx.params.user_id);
  const id = fromGlobalId('User', raw);
  if (id === null) throw new HttpError(422, 'invalid_user_id', `Invalid User GlobalID format: ${raw}`);
  return id;
};

const hashPassword = hashNewPassword;

/** `GET /v1/user`: whoever is asking (a key's owner; the system user for the admin secret). */
const getViewer = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'GET',
    path: '/v1/user',
    handler: async ({ ctx }) => {
      const userId = actingUserId(ctx);
      if (userId === null) {
        ctx.body = { data: { auth_method: 'ANONYMOUS' } };
        return;
      }
      const user = await findUser(deps.pool, userId);
      if (user === null) throw new HttpError(401, 'user_not_found', 'User not found');
      // The role the request was just authorized with is confirmed on the user's stream; the read
      // model may not have caught up with a role change yet (another process applies it).
      const principal = principalOf(ctx);
      const role = principal?.kind === 'user' || principal?.kind === 'apiKey' ? principal.role : user.role;
      ctx.body = { data: { ...userJson(user), role } };
    },
  });

/** Unknown fields are refused (a `password` meant as `new_password` must not be a silent no-op). */
const patchViewerBody = z.strictObject({
  username: ruledString(cleanUsername).optional(),
  /** Required with `new_password`: a stolen session alone cannot take the account over. */
  current_password: z.string().max(PASSWORD_MAX_LENGTH).optional(),
  new_password: z.string().optional(),
});

/**
 * `PATCH /v1/user`: change one's own username and/or password (the reference does this through
 * GraphQL `patchViewer`; this is its REST equivalent). A new password ends every session,
 * this browser's included.
 */
const patchViewer = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'PATCH',
    path: '/v1/user',
    body: patchViewerBody,
    handler: async ({ ctx, body }) => {
      const userId = actingUserId(ctx)!;
      const context = commandContextOf(ctx);
      if (body.new_password !== undefined && body.current_password === undefined) {
        throw new HttpError(422, 'invalid_body', 'body.current_password: Required when new_password is given');
      }
      const positions: (Position | null)[] = [];
      if (body.new_password !== undefined) {
        positions.push(await changeOwnPassword(deps, userId, { current: body.current_password!, next: body.new_password }, context));
        clearSessionCookies(ctx, cookieOptions(deps.settings.rootPath, deps.settings.auth.secureCookies));
      }
      if (body.username !== undefined) positions.push(await changeOwnUsername(deps, userId, body.username, context));
      await respondWithChangedUser(ctx, deps, userId, latest(positions));
    },
  });

const listQuery = z.object({
  cursor: plainString({ maxLength: 256 }).optional(),
  limit: z.coerce.number().int().positive().default(100),
});

/** `GET /v1/users`: newest first; `cursor` is the id of the first user of the page wanted. */
const getUsers = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'GET',
    path: '/v1/users',
    query: listQuery,
    handler: async ({ ctx, query }) => {
      const fromUserId = query.cursor === undefined ? null : fromGlobalId('User', query.cursor);
      const page =
        query.cursor !== undefined && fromUserId === null ? null : await listUsers(deps.pool, { fromUserId, limit: query.limit });
      if (page === null) throw new HttpError(422, 'invalid_cursor', `Invalid cursor format: ${query.cursor}`);
      ctx.body = { data: page.users.map(userJson), next_cursor: page.nextUserId === null ? null : userGlobalId(page.nextUserId) };
    },
  });

// Text rules at the edge name the field in a 422; the email's format (a 400, as in the
// reference) and the password policy are judged further in.
const externalId = plainString({ maxLength: 512 });
const createUserBody = z.strictObject({
  user: z.strictObject({
    email: ruledString((raw) => {
      const problem = emailTextProblem(normaliseEmail(raw));
      if (problem !== null) throw new DomainError('email_invalid', problem);
      return raw;
    }),
    username: ruledString(cleanUsername),
    role: z.string().max(64),
    auth_method: z.enum(['LOCAL', 'OAUTH2', 'LDAP']),
    password: z.string().optional(),
    oauth2_client_id: externalId.optional(),
    oauth2_user_id: externalId.optional(),
  }),
  send_welcome_email: z.boolean().default(true),
});

/**
 * `POST /v1/users`: the new user must choose their own password at first login. Without a
 * password a local user has none usable and signs in after a password reset.
 */
const postUser = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'POST',
    path: '/v1/users',
    body: createUserBody,
    handler: async ({ ctx, body: { user, send_welcome_email } }) => {
      if (user.role.trim().toUpperCase() === 'SYSTEM')
        throw new HttpError(400, 'system_role_forbidden', 'Cannot create users with SYSTEM role');
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
        await mailer.send(welcomeMail(email, user.username, appUrl(ctx, deps))).catch((error: Error) => {
          ctx.state.log?.error({ err: { message: error.message } }, 'welcome mail could not be sent');
        });
      }
    },
  });

const patchUserBody = z.strictObject({
  username: ruledString(cleanUsername).optional(),
  password: z.string().optional(),
  role: z.string().max(64).optional(),
});

/** `PATCH /v1/users/{user_id}`: an admin changes another user's role, username or password. */
const patchUser = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'PATCH',
    path: '/v1/users/:user_id',
    body: patchUserBody,
    handler: async ({ ctx, body }) => {
      const userId = userIdParam(ctx);
      const role = body.role === undefined ? undefined : parseAssignableRole(body.role);
      if (role === null) throw new HttpError(422, 'invalid_body', 'body.role: must be one of ADMIN, MEMBER, VIEWER');
      const byUserId = actingUserId(ctx);
      if (body.password !== undefined && byUserId === userId) {
        throw new HttpError(400, 'own_password', 'Change your own password with PATCH /v1/user, which asks for the current one');
      }
      const position = await changeUserByAdmin(
        deps,
        userId,
        { role, username: body.username, password: body.password },
        byUserId,
        commandContextOf(ctx),
      );
      await respondWithChangedUser(ctx, deps, userId, position);
    },
  });

/** `DELETE /v1/users/{user_id}`: the user's sessions and personal keys end with them. */
const removeUser = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'DELETE',
    path: '/v1/users/:user_id',
    handler: async ({ ctx }) => {
      await deleteUserAndKeys(deps, userIdParam(ctx), actingUserId(ctx), commandContextOf(ctx));
      ctx.status = 204;
    },
  });

export const userRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    getViewer(route, deps),
    patchViewer(route, deps),
    getUsers(route, deps),
    postUser(route, deps),
    patchUser(route, deps),
    removeUser(route, deps),
  ];
};
