import { DomainError } from '../errors.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { handleUserCommand } from './handleUserCommand.ts';
import type { LockoutSettings, PasswordCheck } from './commands.ts';
import type { SessionTokens } from './events.ts';
import { isLocked, LOCKED_MESSAGE } from './lockout.ts';
import { loadUser } from './loadUser.ts';
import type { PasswordHasher } from './passwords.ts';
import { uniqueValueHolder } from './uniqueValues.ts';
import type { UnknownAccountLockout } from './unknownAccountLockout.ts';
import type { UserProfile } from './userState.ts';

export type LoginInput = {
  readonly email: string;
  readonly password: string;
  readonly lockout: LockoutSettings;
  /** Fresh token ids and expiries, used only when the login succeeds. */
  readonly session: SessionTokens;
  readonly now: string;
  /** Lockout for emails without an account, so a 429 does not tell who has one. */
  readonly unknownAccounts?: UnknownAccountLockout;
};

export type LoginResult =
  | { readonly ok: true; readonly user: UserProfile; readonly passwordNeedsReset: boolean; readonly position: Position | null }
  | { readonly ok: false; readonly position: Position | null };

/**
 * Password login. Finds the user through the email reservation, refuses a locked account before
 * spending an argon2 verification (`account_locked`, kind `locked`, even for the right password),
 * verifies, and records the outcome on the user's stream, where the lockout rule decides. An
 * unknown email, a deleted user or a user without a password is `{ ok: false }` after the same
 * verification time; attempts on an unknown email lock it in `unknownAccounts` just as an
 * account would be locked, so the answers do not tell which emails exist.
 */
export const logIn = async (
  store: EventStore,
  passwords: PasswordHasher,
  input: LoginInput,
  context: CommandContext,
): Promise<LoginResult> => {
  const userId = await uniqueValueHolder(store, 'email', input.email);
  const state = userId === null ? null : await loadUser(store, userId);
  if (userId === null || state === null || state.status !== 'active' || state.profile === null) {
    if (input.unknownAccounts?.isLocked(input.email, input.now, input.lockout))
      throw new DomainError('account_locked', LOCKED_MESSAGE, 'locked');
    await passwords.verifyNothing(input.password);
    input.unknownAccounts?.recordFailure(input.email, input.now, input.lockout);
    return { ok: false, position: null };
  }
  if (isLocked(state, input.now, input.lockout)) throw new DomainError('account_locked', LOCKED_MESSAGE, 'locked');
  const hash = state.profile.authMethod === 'LOCAL' ? state.passwordHash : null;
  const password: PasswordCheck =
    hash === null
      ? { matches: await passwords.verifyNothing(input.password), verifiedHash: null }
      : { matches: await passwords.verify(hash, input.password), verifiedHash: hash };
  const result = await handleUserCommand(
    store,
    { type: 'LogIn', userId, password, lockout: input.lockout, session: input.session, now: input.now },
    context,
  );
  if (result.events[0]?.type !== 'LoginSucceeded') return { ok: false, position: result.position };
  // The success was decided against the hash we verified, so the state we read is still current.
  return { ok: true, user: state.profile, passwordNeedsReset: state.passwordNeedsReset, position: result.position };
};
