import { DomainError } from '../errors.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import { loadState } from '../readAndFold.ts';
import { externalIdentityKey } from './externalIdentityKey.ts';
import { loadUser } from './loadUser.ts';
import type { UniqueKind, UniqueValueState } from './uniqueValueDecider.ts';
import { uniqueValueDecider } from './uniqueValueDecider.ts';
import { normaliseUniqueValue, uniqueValueStream } from './uniqueValueStream.ts';

/**
 * How long a reservation may sit unclaimed before another user may take it. Creating or renaming
 * a user reserves first and writes the user stream right after; a process that dies in between
 * leaves a reservation its holder never claims. Far longer than that gap, short enough that a
 * crash does not lock a name for good.
 */
export const RESERVATION_GRACE_MS = 2 * 60 * 1000;

const readReservation = async (store: EventStore, kind: UniqueKind, value: string): Promise<UniqueValueState> =>
  loadState(store, uniqueValueStream(kind, value), uniqueValueDecider);

/** The user holding an email, username or external identity, straight from the log (no projection lag), or null. */
export const uniqueValueHolder = async (store: EventStore, kind: UniqueKind, value: string): Promise<string | null> =>
  (await readReservation(store, kind, value)).holder;

const isAbandoned = async (store: EventStore, kind: UniqueKind, value: string, reservation: UniqueValueState, now: string) => {
  const user = await loadUser(store, reservation.holder!);
  if (user.status === 'deleted') return true;
  const claimed =
    user.profile === null
      ? null
      : kind === 'email'
        ? user.profile.email
        : kind === 'username'
          ? user.profile.username
          : externalIdentityKey(user.profile.authMethod, user.external);
  if (claimed !== null && normaliseUniqueValue(kind, claimed) === value) return false;
  return Date.parse(now) - Date.parse(reservation.since ?? now) > RESERVATION_GRACE_MS;
};

/**
 * Reserve `value` for `userId`, or throw `username_taken` / `email_taken`. Repeating it for the
 * same user is a no-op. A value whose holder was deleted, or never claimed it within the grace
 * period, is taken over (the decider checks the holder is still the one we judged).
 */
export const reserveUniqueValue = async (
  store: EventStore,
  kind: UniqueKind,
  rawValue: string,
  userId: string,
  now: string,
  context: CommandContext,
): Promise<void> => {
  const value = normaliseUniqueValue(kind, rawValue);
  const stream = uniqueValueStream(kind, value);
  const command = { type: 'ReserveUniqueValue', kind, value, userId, now } as const;
  try {
    await handleCommand(store, stream, uniqueValueDecider, command, context);
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
    const reservation = await readReservation(store, kind, value);
    if (reservation.holder !== null && !(await isAbandoned(store, kind, value, reservation, now))) throw error;
    // Released meanwhile, or abandoned: claim it (again judged against the stream as it is then).
    await handleCommand(
      store,
      stream,
      uniqueValueDecider,
      reservation.holder === null ? command : { ...command, takeOverFrom: reservation.holder },
      context,
    );
  }
};

/** Give `value` up if `userId` holds it; otherwise nothing happens. */
export const releaseUniqueValue = async (
  store: EventStore,
  kind: UniqueKind,
  rawValue: string,
  userId: string,
  now: string,
  context: CommandContext,
): Promise<void> => {
  const value = normaliseUniqueValue(kind, rawValue);
  await handleCommand(
    store,
    uniqueValueStream(kind, value),
    uniqueValueDecider,
    { type: 'ReleaseUniqueValue', kind, value, userId, now },
    context,
  );
};
