import { randomBytes } from 'node:crypto';
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
import { appUrlOf } from '../../identity/appUrl.ts';
import { clearedSessionCookies, cookieOptions } from '../../identity/authCookies.ts';
import { plainString, ruledString } from '../../http/fieldRule.ts';
import { welcomeMail } from '../../identity/passwordResetMail.ts';
import { answer, NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import type { Settle } from '../../http/readYourWrites.ts';
import { routeKit, type Route } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import {
  changeOwnPassword,
  changeOwnUsername,
  changeUserByAdmin,
  deleteUserAndKeys,
  hashNewPassword,
  userAfterChange,
} from '../../identity/userAccountCommands.ts';
import { userGlobalId, userJson, userSchema } from './userJson.ts';

const newUserId = (): string => randomBytes(12).toString('hex');

const actingUserId = (principal: Principal | null): string | null => {
  return principal === null || principal.kind === 'anonymous' ? null : principal.userId;
};

const latest = (positions: readonly (Position | null)[]): Position | null => positions.filter((p) => p !== null).at(-1) ?? null;

/** The user as the read model shows it once this process has applied `position`. */
const userAfter = async (deps: AppDeps, settle: Settle, userId: string, position: Position | null) => {
  await settle(position);
  const user = await findUser(deps.pool, userId);
  if (user === null) throw new HttpError(404, 'user_not_found', 'User not found');
  return { data: userJson(user) };
};

/**
 * The same after a change to an existing user that may end sessions or change what their keys
 * may do (role, password, name): in effect at once whatever the read models do (see
 * settleAuthChange). Should the read model still lag, the fields the change touched are taken
 * from the user's own stream, so the answer never shows the old role.
 */
const changedUser = async (deps: AppDeps, userId: string, position: Position | null) => ({
  data: userJson(await userAfterChange(deps, userId, position)),
});

const userIdParam = (raw: string): string => {
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
    responses: { 200: dataOf(z.union([userSchema, z.object({ auth_method: z.literal('ANONYMOUS') })])) },
    handler: async ({ principal }) => {
      const userId = actingUserId(principal);
      if (userId === null) return { data: { auth_method: 'ANONYMOUS' as const } };
      const user = await findUser(deps.pool, userId);
      if (user === null) throw new HttpError(401, 'user_not_found', 'User not found');
      // The role the request was just authorized with is confirmed on the user's stream; the read
      // model may not have caught up with a role change yet (another process applies it).
      const role = principal?.kind === 'user' || principal?.kind === 'apiKey' ? principal.role : user.role;
      return { data: { ...userJson(user), role } };
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
    responses: { 200: dataOf(userSchema) },
    handler: async ({ principal, context, body }) => {
      const userId = actingUserId(principal)!;
      let cookies: string[] = [];
      if (body.new_password !== undefined && body.current_password === undefined) {
        throw new HttpError(422, 'invalid_body', 'body.current_password: Required when new_password is given');
      }
      const positions: (Position | null)[] = [];
      if (body.new_password !== undefined) {
        positions.push(await changeOwnPassword(deps, userId, { current: body.current_password!, next: body.new_password }, context));
        cookies = clearedSessionCookies(cookieOptions(deps.settings.rootPath, deps.settings.auth.secureCookies));
      }
      if (body.username !== undefined) positions.push(await changeOwnUsername(deps, userId, body.username, context));
      const changed = await changedUser(deps, userId, latest(positions));
      return cookies.length === 0 ? changed : answer(200, changed, { 'set-cookie': cookies });
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
    responses: { 200: pageOf(userSchema) },
    handler: async ({ query }) => {
      const fromUserId = query.cursor === undefined ? null : fromGlobalId('User', query.cursor);
      const page =
        query.cursor !== undefined && fromUserId === null ? null : await listUsers(deps.pool, { fromUserId, limit: query.limit });
      if (page === null) throw new HttpError(422, 'invalid_cursor', `Invalid cursor format: ${query.cursor}`);
      return { data: page.users.map(userJson), next_cursor: page.nextUserId === null ? null : userGlobalId(page.nextUserId) };
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
    responses: { 201: dataOf(userSchema) },
    handler: async ({ context, settle, origin, log, body: { user, send_welcome_email } }) => {
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
        context,
      );
      const created = await userAfter(deps, settle, userId, result.position);
      const mailer = deps.identity.mailer;
      if (send_welcome_email && mailer !== null) {
        // The account exists either way; a mail problem is only worth a log line.
        await mailer.send(welcomeMail(email, user.username, appUrlOf(origin, deps))).catch((error: Error) => {
          log?.error({ err: { message: error.message } }, 'welcome mail could not be sent');
        });
      }
      return created;
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
    responses: { 200: dataOf(userSchema) },
    handler: async ({ params, principal, context, body }) => {
      const userId = userIdParam(params.user_id);
      const role = body.role === undefined ? undefined : parseAssignableRole(body.role);
      if (role === null) throw new HttpError(422, 'invalid_body', 'body.role: must be one of ADMIN, MEMBER, VIEWER');
      const byUserId = actingUserId(principal);
      if (body.password !== undefined && byUserId === userId) {
        throw new HttpError(400, 'own_password', 'Change your own password with PATCH /v1/user, which asks for the current one');
      }
      const position = await changeUserByAdmin(deps, userId, { role, username: body.username, password: body.password }, byUserId, context);
      return await changedUser(deps, userId, position);
    },
  });

/** `DELETE /v1/users/{user_id}`: the user's sessions and personal keys end with them. */
const removeUser = (route: Route, deps: AppDeps): RouteDef =>
  route({
    method: 'DELETE',
    path: '/v1/users/:user_id',
    responses: { 204: NO_CONTENT },
    handler: async ({ params, principal, context }) => {
      await deleteUserAndKeys(deps, userIdParam(params.user_id), actingUserId(principal), context);
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
