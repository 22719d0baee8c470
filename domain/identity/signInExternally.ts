import { createHash, randomBytes, randomInt } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { createUser } from './createUser.ts';
import { normaliseEmail } from './email.ts';
import type { LockoutSettings } from './commands.ts';
import type { SessionTokens, UserCreated } from './events.ts';
import { handleUserCommand } from './handleUserCommand.ts';
import { loadUser } from './loadUser.ts';
import type { AssignableRole } from './roles.ts';
import { uniqueValueHolder } from './uniqueValues.ts';
import { USERNAME_MAX_LENGTH, usernameProblem } from './username.ts';
import type { UserState } from './userState.ts';
import { userStream } from './userStream.ts';

/** Who an OAuth2 provider or LDAP directory says signed in; checked (groups, strict role) by the caller. */
export type ExternalIdentity = {
  readonly method: 'OAUTH2' | 'LDAP';
  /**
   * What identifies the person at the provider for good: OAuth2 `<client id>` + `sub`; LDAP the
   * unique-id attribute, or the email when none is configured.
   */
  readonly key: string;
  /** Normalised; null only for LDAP no-email mode. */
  readonly email: string | null;
  /** Preferred username for a new user (`name` claim, display name). */
  readonly username: string;
  /** null = the provider says nothing about roles (existing users keep theirs, new ones are VIEWER). */
  readonly role: AssignableRole | null;
  readonly allowSignUp: boolean;
  readonly oauth2ClientId?: string;
  readonly oauth2UserId?: string;
  readonly ldapUniqueId?: string | null;
  /** Set where failed attempts are counted (LDAP): a locked account gets no session even with the right password. */
  readonly lockout?: LockoutSettings;
};

export type ExternalSignInResult =
  | { readonly ok: true; readonly userId: string; readonly created: boolean; readonly position: Position | null }
  /**
   * `email_in_use`: a user who does not sign in through this provider has the email;
   * `sign_in_not_allowed`: sign-up is off and no user of this kind matches.
   */
  | { readonly ok: false; readonly code: 'email_in_use' | 'sign_in_not_allowed' };

/** Deleted users keep their stream, so a person who signs in again after deletion gets the next id. */
const MAX_GENERATIONS = 50;

/**
 * The user id of an external identity is derived from it, so finding the user needs no read model
 * (which may lag) and two first logins at once race on one stream: one creates, the other finds.
 */
const externalUserId = (method: string, key: string, generation: number): string =>
  createHash('sha256').update(`${method}\u0000${key}\u0000${generation}`).digest('hex').slice(0, 24);

const findByKey = async (store: EventStore, identity: ExternalIdentity): Promise<{ found: UserState | null; freeId: string }> => {
  for (let generation = 0; generation < MAX_GENERATIONS; generation++) {
    const userId = externalUserId(identity.method, identity.key, generation);
    const state = await loadUser(store, userId);
    if (state.status === 'active') return { found: state, freeId: userId };
    if (state.status === 'absent') return { found: null, freeId: userId };
  }
  throw new DomainError('too_many_deletions', 'This identity was deleted too many times', 'conflict');
};

/** The provider ids a user was created with (an admin may have set them when pre-provisioning). */
const externalIdsOf = async (store: EventStore, userId: string) => {
  const created = (await store.readStream(userStream(userId))).find((e) => e.type === 'UserCreated')?.data as
    | UserCreated['data']
    | undefined;
  return {
    oauth2ClientId: created?.oauth2ClientId ?? null,
    oauth2UserId: created?.oauth2UserId ?? null,
    ldapUniqueId: created?.ldapUniqueId ?? null,
  };
};

/**
 * How a user found by email relates to this identity: `same` when it was created with exactly
 * these provider ids, `other` when it holds different ones (another person at the provider, e.g.
 * a recycled email address), `unknown` when it has none to compare.
 */
const linkOf = async (store: EventStore, userId: string, identity: ExternalIdentity): Promise<'same' | 'other' | 'unknown'> => {
  const ids = await externalIdsOf(store, userId);
  if (identity.method === 'LDAP') {
    if (ids.ldapUniqueId === null || !identity.ldapUniqueId) return 'unknown';
    return ids.ldapUniqueId.toLowerCase() === identity.ldapUniqueId.toLowerCase() ? 'same' : 'other';
  }
  if (ids.oauth2ClientId === null || ids.oauth2UserId === null || ids.oauth2ClientId !== identity.oauth2ClientId) return 'unknown';
  return ids.oauth2UserId === identity.oauth2UserId ? 'same' : 'other';
};

/** Usernames are unique: a taken one gets a random suffix (OAuth2 `name-12345`, LDAP `name (a1b2c3)`). */
const usernameCandidates = (identity: ExternalIdentity): string[] => {
  // A provider's name may be anything (control characters, an essay): then the email's local part, then `user`.
  const base =
    [identity.username.trim().slice(0, USERNAME_MAX_LENGTH - 12), identity.email?.split('@')[0] ?? '', 'user'].find(
      (candidate) => candidate !== '' && usernameProblem(candidate) === null,
    ) ?? 'user';
  const suffix = () => (identity.method === 'OAUTH2' ? `-${randomInt(10_000, 100_000)}` : ` (${randomBytes(3).toString('hex')})`);
  return [base, `${base}${suffix()}`, `${base}${suffix()}`, `${base}${suffix()}`];
};

/**
 * The existing user this identity signs in as (the same matching as signInExternally), or null.
 * The LDAP route uses it to count a wrong password against that account's lockout.
 */
export const findExternalUser = async (store: EventStore, identity: ExternalIdentity): Promise<string | null> => {
  const { found } = await findByKey(store, identity);
  if (found?.profile) return found.profile.userId;
  const match = await matchByEmail(store, identity);
  return match.kind === 'match' ? match.userId : null;
};

const matchByEmail = async (
  store: EventStore,
  identity: ExternalIdentity,
): Promise<{ kind: 'none' } | { kind: 'match'; userId: string } | { kind: 'refused' }> => {
  const email = identity.email === null ? null : normaliseEmail(identity.email);
  const holderId = email === null ? null : await uniqueValueHolder(store, 'email', email);
  if (holderId === null) return { kind: 'none' };
  const holder = await loadUser(store, holderId);
  const sameKind = holder.status === 'active' && holder.profile?.authMethod === identity.method;
  const link = sameKind ? await linkOf(store, holderId, identity) : 'other';
  const mayMatchByEmail = identity.method === 'LDAP' || !identity.allowSignUp;
  return link === 'same' || (link === 'unknown' && mayMatchByEmail) ? { kind: 'match', userId: holderId } : { kind: 'refused' };
};

/**
 * The sign-in of someone an external provider has authenticated: find or (sign-up allowed) create
 * the user, sync the role when the provider gives one, start a session. The events are the same
 * as for a local user: UserCreated (auth method OAUTH2/LDAP, no password), RoleChanged (with
 * `syncedFrom`), SessionStarted.
 *
 * Matching: first the identity itself. Failing that, a user holding the email is taken only if it
 * signs in the same way (a pre-provisioned OAuth2 user, an LDAP user created before a unique id
 * was configured) and either was created with exactly these provider ids, or has none and — for
 * OAuth2 — sign-up is off, as in the reference. A local or other provider's account, or one
 * holding another person's provider ids (a recycled email), is never taken over.
 */
export const signInExternally = async (
  store: EventStore,
  identity: ExternalIdentity,
  session: SessionTokens,
  now: string,
  context: CommandContext,
): Promise<ExternalSignInResult> => {
  const via = identity.method === 'OAUTH2' ? 'oauth2' : 'ldap';
  const start = async (userId: string, created: boolean): Promise<ExternalSignInResult> => {
    const result = await handleUserCommand(
      store,
      { type: 'StartSession', userId, via, role: identity.role, lockout: identity.lockout, session, now },
      context,
    );
    return { ok: true, userId, created, position: result.position };
  };

  const { found, freeId } = await findByKey(store, identity);
  if (found?.profile) return start(found.profile.userId, false);

  const match = await matchByEmail(store, identity);
  if (match.kind === 'match') return start(match.userId, false);
  if (match.kind === 'refused') return { ok: false, code: identity.allowSignUp ? 'email_in_use' : 'sign_in_not_allowed' };
  if (!identity.allowSignUp) return { ok: false, code: 'sign_in_not_allowed' };
  const email = identity.email === null ? null : normaliseEmail(identity.email);

  for (const username of usernameCandidates(identity)) {
    try {
      await createUser(
        store,
        {
          type: 'CreateUser',
          userId: freeId,
          username,
          email,
          role: identity.role ?? 'VIEWER',
          authMethod: identity.method,
          passwordHash: null,
          passwordNeedsReset: false,
          oauth2ClientId: identity.oauth2ClientId ?? null,
          oauth2UserId: identity.oauth2UserId ?? null,
          ldapUniqueId: identity.ldapUniqueId ?? null,
          now,
        },
        context,
      );
      return start(freeId, true);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // Another login of the same person created it a moment ago.
      if (error.code === 'user_exists') return start(freeId, false);
      if (error.code === 'email_taken') return { ok: false, code: 'email_in_use' };
      if (error.code !== 'username_taken') throw error;
    }
  }
  throw new DomainError('username_taken', 'Could not find a free username', 'conflict');
};
