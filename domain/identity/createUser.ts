import { DomainError } from '../errors.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { CreateUser } from './commands.ts';
import type { UserEvent } from './events.ts';
import { loadUser } from './loadUser.ts';
import { releaseQuietly } from './releaseQuietly.ts';
import { reserveUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

// When the user itself exists (bootstrap racing with another process, both with the built-in id),
// the reservations are that user's: giving them back would free its names.
const undoneBy = (error: unknown): boolean => !(error instanceof DomainError && error.code === 'user_exists');

/**
 * Create a user: reserve the username, then the email, then write the user stream; undo the
 * reservations when a later step fails. Throws `username_taken` / `email_taken` (conflict) when
 * another user holds them — bootstrap of `SERVICE_ADMINS` catches these to leave existing users as
 * they are — and any rule break of the user decider before reserving anything.
 */
export const createUser = async (store: EventStore, command: CreateUser, context: CommandContext): Promise<CommandResult<UserEvent>> => {
  userDecider.decide(command, userDecider.initialState());
  if ((await loadUser(store, command.userId)).status !== 'absent') throw new DomainError('user_exists', 'User already exists', 'conflict');
  const { userId, now } = command;
  await reserveUniqueValue(store, 'username', command.username, userId, now, context);
  try {
    if (command.email !== null) await reserveUniqueValue(store, 'email', command.email, userId, now, context);
    try {
      return await handleCommand(store, userStream(userId), userDecider, command, context);
    } catch (error) {
      if (command.email !== null && undoneBy(error)) await releaseQuietly(store, 'email', command.email, userId, now, context);
      throw error;
    }
  } catch (error) {
    if (undoneBy(error)) await releaseQuietly(store, 'username', command.username, userId, now, context);
    throw error;
  }
};
