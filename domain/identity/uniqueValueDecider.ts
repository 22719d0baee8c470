import type { Decider, DomainEvent } from '../decider.ts';
import { DomainError } from '../errors.ts';

/**
 * Uniqueness of usernames and emails, event-sourced. Each normalised value has its own small
 * stream (see uniqueValueStream); whoever appends `UniqueValueReserved` to it first holds the
 * value. handleCommand appends with the revision it read (`no_stream` for a fresh value), so of
 * two concurrent claims exactly one lands and the other is decided again and refused — in any
 * process, on either event store, without a read model (which may lag) or a unique index (which
 * the log does not have). One stream per value, not one `users` stream holding all of them,
 * keeps every check to a read of one or two events and avoids a hot stream all sign-ups fight
 * over. A value is released when the user is deleted or renamed, and can then be reserved again.
 */

/** `external`: an OAuth2 (client id, sub) or LDAP unique id linked to a user (see externalIdentityKey). */
export type UniqueKind = 'username' | 'email' | 'external';

export type UniqueValueReserved = DomainEvent<
  'UniqueValueReserved',
  { readonly kind: UniqueKind; readonly value: string; readonly userId: string; readonly at: string }
>;
export type UniqueValueReleased = DomainEvent<
  'UniqueValueReleased',
  { readonly kind: UniqueKind; readonly value: string; readonly userId: string; readonly at: string }
>;
export type UniqueValueEvent = UniqueValueReserved | UniqueValueReleased;

export type ReserveUniqueValue = {
  readonly type: 'ReserveUniqueValue';
  readonly kind: UniqueKind;
  /** Already normalised (see uniqueValueStream). */
  readonly value: string;
  readonly userId: string;
  /** Take the value from this holder, which the caller found abandoned it (see reserveUniqueValue). */
  readonly takeOverFrom?: string;
  readonly now: string;
};
export type ReleaseUniqueValue = {
  readonly type: 'ReleaseUniqueValue';
  readonly kind: UniqueKind;
  readonly value: string;
  readonly userId: string;
  readonly now: string;
};
export type UniqueValueCommand = ReserveUniqueValue | ReleaseUniqueValue;

export type UniqueValueState = { readonly holder: string | null; readonly since: string | null };

export const takenError = (kind: UniqueKind): DomainError =>
  kind === 'username'
    ? new DomainError('username_taken', 'Username already exists', 'conflict')
    : kind === 'email'
      ? new DomainError('email_taken', 'Email already exists', 'conflict')
      : new DomainError('external_identity_taken', 'This external identity already signs in as another user', 'conflict');

const decide = (c: UniqueValueCommand, state: UniqueValueState): UniqueValueEvent[] => {
  const data = { kind: c.kind, value: c.value, userId: c.userId, at: c.now };
  if (c.type === 'ReleaseUniqueValue') {
    // Only the holder releases; anything else is a repeat or a stale caller.
    return state.holder === c.userId ? [{ type: 'UniqueValueReleased', data }] : [];
  }
  if (state.holder === null) return [{ type: 'UniqueValueReserved', data }];
  if (state.holder === c.userId) return [];
  if (c.takeOverFrom !== undefined && state.holder === c.takeOverFrom) {
    return [
      { type: 'UniqueValueReleased', data: { ...data, userId: state.holder } },
      { type: 'UniqueValueReserved', data },
    ];
  }
  throw takenError(c.kind);
};

export const uniqueValueDecider: Decider<UniqueValueState, UniqueValueCommand, UniqueValueEvent> = {
  initialState: () => ({ holder: null, since: null }),
  evolve: (_state, event) =>
    event.type === 'UniqueValueReserved' ? { holder: event.data.userId, since: event.data.at } : { holder: null, since: null },
  decide,
};
