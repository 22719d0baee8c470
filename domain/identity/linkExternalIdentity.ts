import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { LinkExternalIdentity } from './commands.ts';
import type { UserEvent } from './events.ts';
import { externalIdentityKey } from './externalIdentityKey.ts';
import { loadUser } from './loadUser.ts';
import { releaseQuietly } from './releaseQuietly.ts';
import { releaseUniqueValue, reserveUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

/**
 * Link a user to the provider ids it was just matched with by email: reserve the identity (so a
 * later login finds the user by it, straight from the log), record ExternalIdentityLinked unless
 * the user already carries these ids, then free the identity it was linked to before (a user
 * signs in through one OAuth2 identity at a time, as in the reference). Throws
 * `external_identity_taken` when another user holds the identity.
 */
export const linkExternalIdentity = async (
  store: EventStore,
  command: LinkExternalIdentity,
  context: CommandContext,
): Promise<CommandResult<UserEvent>> => {
  const { userId, now } = command;
  const state = await loadUser(store, userId);
  userDecider.decide(command, state);
  const method = command.via === 'oauth2' ? 'OAUTH2' : 'LDAP';
  const key = externalIdentityKey(method, command);
  if (key === null) return { events: [], position: null, revision: null };
  await reserveUniqueValue(store, 'external', key, userId, now, context);
  let result: CommandResult<UserEvent>;
  try {
    result = await handleCommand(store, userStream(userId), userDecider, command, context);
  } catch (error) {
    await releaseQuietly(store, 'external', key, userId, now, context);
    throw error;
  }
  const previous = externalIdentityKey(method, state.external);
  if (result.events.length > 0 && previous !== null && previous !== key) {
    await releaseUniqueValue(store, 'external', previous, userId, now, context);
  }
  return result;
};
