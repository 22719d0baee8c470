import { DomainError } from '../errors.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { CreateUser } from './commands.ts';
import type { UserEvent } from './events.ts';
import { externalIdentityKey } from './externalIdentityKey.ts';
import { loadUser } from './loadUser.ts';
import { releaseQuietly } from './releaseQuietly.ts';
import type { UniqueKind } from './uniqueValueDecider.ts';
import { reserveUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

// When the user itself exists (bootstrap racing with another process, both with the built-in id),
// the reservations are that user's: giving them back would free its names.
const undoneBy = (error: unknown): boolean => !(error instanceof DomainError && error.code === 'user_exists');

/**
 * Create a user: reserve the username, then the email, then the provider identity (OAuth2 client
 * id + sub, LDAP unique id) when it has one, then write the user stream; undo the reservations
 * when a later step fails. Throws `username_taken` / `email_taken` / `external_identity_taken`
 * (conflict) when another user holds them — bootstrap of `SERVICE_ADMINS` catches these to leave existing users as
 * they are — and any rule break of the user decider before reserving anything.
 */
export const createUser = async (store: EventStore, command: CreateUser, context: CommandContext): Promise<CommandResult<UserEvent>> => {
  userDecider.decide(command, userDecider.initialState());
  if ((await loadUser(store, command.userId)).status !== 'absent') throw new DomainError('user_exists', 'User already exists', 'conflict');
  const { userId, now } = command;
  const external = externalIdentityKey(command.authMethod, {
    oauth2ClientId: command.oauth2ClientId ?? null,
    oauth2UserId: command.oauth2UserId ?? null,
    ldapUniqueId: command.ldapUniqueId ?? null,
  });
  const reserved: [UniqueKind, string][] = [];
  try {
    for (const [kind, value] of [
      ['username', command.username],
      ['email', command.email],
      ['external', external],
    ] as const) {
      if (value === null) continue;
      await reserveUniqueValue(store, kind, value, userId, now, context);
      reserved.push([kind, value]);
    }
    return await handleCommand(store, userStream(userId), userDecider, command, context);
  } catch (error) {
    if (undoneBy(error)) for (const [kind, value] of reserved.reverse()) await releaseQuietly(store, kind, value, userId, now, context);
    throw error;
  }
};
