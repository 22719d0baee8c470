import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { SyncEmail } from './commands.ts';
import { normaliseEmail } from './email.ts';
import type { UserEvent } from './events.ts';
import { loadUser } from './loadUser.ts';
import { releaseQuietly } from './releaseQuietly.ts';
import { releaseUniqueValue, reserveUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

/**
 * Take the email a provider now reports for a user it knows: reserve the new address, record
 * EmailChanged, free the old one. Throws `email_taken` when another user holds the address (the
 * login is then refused: two accounts never share an email).
 */
export const syncEmail = async (store: EventStore, command: SyncEmail, context: CommandContext): Promise<CommandResult<UserEvent>> => {
  const { userId, now } = command;
  if (userDecider.decide(command, await loadUser(store, userId)).length === 0) return { events: [], position: null, revision: null };
  const email = normaliseEmail(command.email);
  await reserveUniqueValue(store, 'email', email, userId, now, context);
  let result: CommandResult<UserEvent>;
  try {
    result = await handleCommand(store, userStream(userId), userDecider, command, context);
  } catch (error) {
    await releaseQuietly(store, 'email', email, userId, now, context);
    throw error;
  }
  for (const event of result.events) {
    if (event.type === 'EmailChanged' && event.data.previousEmail !== null) {
      await releaseUniqueValue(store, 'email', event.data.previousEmail, userId, now, context);
    }
  }
  return result;
};
