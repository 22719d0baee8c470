import { revokeApiKey } from '../../domain/apiKeys/revokeApiKey.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Position } from '../../domain/eventstore/types.ts';
import { comparePosition } from '../../domain/eventstore/types.ts';
import type { CommandContext } from '../../domain/handleCommand.ts';
import { changeUsername } from '../../domain/identity/changeUsername.ts';
import { deleteUser } from '../../domain/identity/deleteUser.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import { checkPassword } from '../../domain/identity/passwordPolicy.ts';
import type { AssignableRole } from '../../domain/identity/roles.ts';
import { listApiKeys } from '../../projections/apiKeys/apiKeyQueries.ts';
import { findUser, type UserRow } from '../../projections/identity/userQueries.ts';
import { readModelPosition } from '../../projections/readModelPosition.ts';
import type { AppDeps } from '../appDeps.ts';
import { settleAuthChange } from '../http/settleAuthChange.ts';
import { HttpError } from '../http/httpError.ts';

/**
 * The account writes REST (/v1/user, /v1/users) and GraphQL (patchViewer, patchUser,
 * deleteUsers) share: one write path, so a rule or a read-your-writes fix lands in both. The
 * edges keep only what is theirs: parsing, and messages naming their own fields.
 */

const latest = (positions: readonly (Position | null)[]): Position | null => positions.filter((p) => p !== null).at(-1) ?? null;

/** A new password checked against the configured policy, then hashed. */
export const hashNewPassword = async (deps: AppDeps, password: string): Promise<string> => {
  checkPassword(password, deps.settings.auth.passwordRule);
  return deps.identity.passwords.hash(password);
};

/**
 * One's own password, given the current one (a stolen session alone cannot take the account
 * over). The decider refuses a wrong current password; the change ends every session.
 */
export const changeOwnPassword = async (
  deps: AppDeps,
  userId: string,
  passwords: { readonly current: string; readonly next: string },
  context: CommandContext,
): Promise<Position | null> => {
  const passwordHash = await hashNewPassword(deps, passwords.next);
  const current = (await loadUser(deps.store, userId)).passwordHash;
  const hasher = deps.identity.passwords;
  const matches = current === null ? await hasher.verifyNothing(passwords.current) : await hasher.verify(current, passwords.current);
  const result = await handleUserCommand(
    deps.store,
    {
      type: 'ChangePassword',
      userId,
      passwordHash,
      by: { kind: 'self', currentPassword: { matches, verifiedHash: current } },
      now: deps.identity.now().toISOString(),
    },
    context,
  );
  return result.position;
};

export const changeOwnUsername = async (
  deps: AppDeps,
  userId: string,
  username: string,
  context: CommandContext,
): Promise<Position | null> =>
  (await changeUsername(deps.store, { type: 'ChangeUsername', userId, username, now: deps.identity.now().toISOString() }, context))
    .position;

/**
 * An admin's change to another user's role, username and/or password (each optional, applied in
 * that order); 404 when the user is not there. Returns the last position.
 */
export const changeUserByAdmin = async (
  deps: AppDeps,
  userId: string,
  change: { readonly role?: AssignableRole; readonly username?: string; readonly password?: string },
  byUserId: string | null,
  context: CommandContext,
): Promise<Position | null> => {
  if ((await loadUser(deps.store, userId)).status !== 'active') throw new HttpError(404, 'user_not_found', 'User not found');
  const now = deps.identity.now().toISOString();
  const positions: (Position | null)[] = [];
  if (change.role !== undefined) {
    positions.push(
      (await handleUserCommand(deps.store, { type: 'ChangeRole', userId, role: change.role, byUserId, now }, context)).position,
    );
  }
  if (change.username !== undefined) {
    positions.push(
      (await changeUsername(deps.store, { type: 'ChangeUsername', userId, username: change.username, now }, context)).position,
    );
  }
  if (change.password !== undefined) {
    const passwordHash = await hashNewPassword(deps, change.password);
    positions.push(
      (await handleUserCommand(deps.store, { type: 'ChangePassword', userId, passwordHash, by: { kind: 'admin' }, now }, context)).position,
    );
  }
  return latest(positions);
};

/** Deletes a user; their sessions and personal keys end with them, at once (see settleAuthChange). */
export const deleteUserAndKeys = async (deps: AppDeps, userId: string, byUserId: string | null, context: CommandContext): Promise<void> => {
  const keys = await listApiKeys(deps.pool, { kind: 'user', ownerUserId: userId });
  const now = deps.identity.now().toISOString();
  const result = await deleteUser(deps.store, { type: 'DeleteUser', userId, now }, context);
  // In effect at once: the user's sessions and keys are judged on their streams from here on.
  deps.identity.freshness.note(result.position);
  // UserDeleted already ends the keys; revoking them too keeps each key's own stream truthful.
  let last = result.position;
  for (const key of keys) {
    const revoked = await revokeApiKey(
      deps.store,
      {
        type: 'RevokeApiKey',
        keyId: key.keyId,
        kind: 'user',
        requester: { userId: byUserId, isAdmin: true },
        reason: 'owner_deleted',
        now,
      },
      context,
    ).catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
      return null;
    });
    last = revoked?.position ?? last;
  }
  await settleAuthChange(deps, last);
};

/**
 * The user after a change that may end sessions or change what their keys may do (role,
 * password, name): in effect at once whatever the read models do (see settleAuthChange). Should
 * the read model still lag, the fields the change touched are taken from the user's own stream,
 * so the answer never shows the old role.
 */
export const userAfterChange = async (deps: AppDeps, userId: string, position: Position | null): Promise<UserRow> => {
  await settleAuthChange(deps, position);
  const row = await findUser(deps.pool, userId);
  const applied = position === null || comparePosition(readModelPosition(deps.runner, ['users']), position) >= 0;
  const state = applied ? null : await loadUser(deps.store, userId);
  if (row === null || (state !== null && state.status !== 'active')) throw new HttpError(404, 'user_not_found', 'User not found');
  return state?.profile == null
    ? row
    : { ...row, username: state.profile.username, role: state.profile.role, passwordNeedsReset: state.passwordNeedsReset };
};
