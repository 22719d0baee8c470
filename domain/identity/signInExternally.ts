import { createHash, randomBytes, randomInt } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { createUser } from './createUser.ts';
import { isValidEmail, normaliseEmail } from './email.ts';
import { externalIdentityKey } from './externalIdentityKey.ts';
import type { LockoutSettings } from './commands.ts';
import type { SessionTokens } from './events.ts';
import { handleUserCommand } from './handleUserCommand.ts';
import { linkExternalIdentity } from './linkExternalIdentity.ts';
import { loadUser } from './loadUser.ts';
import type { AssignableRole } from './roles.ts';
import { syncEmail } from './syncEmail.ts';
import { uniqueValueHolder } from './uniqueValues.ts';
import { USERNAME_MAX_LENGTH, usernameProblem } from './username.ts';
import type { ExternalIds, UserState } from './userState.ts';

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
  /** The `<IDP>` name of the OAuth2 configuration the login came through (recorded when linking). */
  readonly provider?: string;
  /** Set where failed attempts are counted (LDAP): a locked account gets no session even with the right password. */
  readonly lockout?: LockoutSettings;
};

export type ExternalSignInResult =
  | { readonly ok: true; readonly userId: string; readonly created: boolean; readonly position: Position | null }
  /**
   * `email_in_use`: a user who does not sign in through this provider has the email (for a known
   * user: the new email the provider reports);
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

const idsOf = (identity: ExternalIdentity): ExternalIds => ({
  oauth2ClientId: identity.oauth2ClientId ?? null,
  oauth2UserId: identity.oauth2UserId ?? null,
  ldapUniqueId: identity.ldapUniqueId ?? null,
});

/**
 * Whether the user signs in with exactly this identity now. A user created by it may have been
 * linked to another provider since (sign-up off, matched by email), and then no longer is. An LDAP
 * identity without a unique id is its email (or DN), which the derived user id already encodes.
 */
const carries = (state: UserState, identity: ExternalIdentity): boolean => {
  if (identity.method === 'OAUTH2') {
    return (
      state.external.oauth2ClientId === (identity.oauth2ClientId ?? null) && state.external.oauth2UserId === (identity.oauth2UserId ?? null)
    );
  }
  if (!identity.ldapUniqueId) return true;
  return state.external.ldapUniqueId?.toLowerCase() === identity.ldapUniqueId.toLowerCase();
};

/**
 * The active user this identity signs in as, found without a read model: the user it created
 * (derived id), else the user it was linked to after an email match (its reservation). `freeId`
 * is the id a new user for it would get.
 */
const findByKey = async (store: EventStore, identity: ExternalIdentity): Promise<{ found: UserState | null; freeId: string }> => {
  let freeId: string | null = null;
  for (let generation = 0; generation < MAX_GENERATIONS && freeId === null; generation++) {
    const userId = externalUserId(identity.method, identity.key, generation);
    const state = await loadUser(store, userId);
    if (state.status === 'active' && state.profile !== null && carries(state, identity)) return { found: state, freeId: userId };
    if (state.status === 'absent') freeId = userId;
  }
  if (freeId === null) throw new DomainError('too_many_deletions', 'This identity was deleted too many times', 'conflict');
  const key = externalIdentityKey(identity.method, idsOf(identity));
  const holderId = key === null ? null : await uniqueValueHolder(store, 'external', key);
  if (holderId !== null) {
    const holder = await loadUser(store, holderId);
    if (holder.status === 'active' && holder.profile?.authMethod === identity.method && carries(holder, identity)) {
      return { found: holder, freeId };
    }
  }
  return { found: null, freeId };
};

/**
 * How a user found by email relates to this identity: `same` when it carries exactly these
 * provider ids, `other` when it holds different ones (another person at the provider, e.g. a
 * recycled email address; for OAuth2 only another `sub` under the same client id counts), `unknown`
 * when it has none to compare.
 */
const linkOf = (state: UserState, identity: ExternalIdentity): 'same' | 'other' | 'unknown' => {
  const ids = state.external;
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
  const link = sameKind ? linkOf(holder, identity) : 'other';
  const mayMatchByEmail = identity.method === 'LDAP' || !identity.allowSignUp;
  return link === 'same' || (link === 'unknown' && mayMatchByEmail) ? { kind: 'match', userId: holderId } : { kind: 'refused' };
};

/**
 * Record the provider ids on a user just matched by email, so the next login finds it by them
 * (even after the email changed at the provider). False when another user holds them.
 */
const link = async (store: EventStore, identity: ExternalIdentity, userId: string, now: string, context: CommandContext) => {
  const ids = idsOf(identity);
  if (externalIdentityKey(identity.method, ids) === null) return true;
  const via = identity.method === 'OAUTH2' ? 'oauth2' : 'ldap';
  try {
    await linkExternalIdentity(
      store,
      { type: 'LinkExternalIdentity', userId, via, provider: identity.provider ?? null, ...ids, now },
      context,
    );
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'external_identity_taken') return false;
    throw error;
  }
};

/**
 * Take a changed email from the provider for a user found by its identity. False when another
 * account holds the new address (the login is refused, nothing changes). An address we could not
 * store (no dot in the domain) is left alone: the user keeps the stored one and still signs in.
 */
const followEmail = async (store: EventStore, identity: ExternalIdentity, userId: string, now: string, context: CommandContext) => {
  if (identity.email === null || !isValidEmail(normaliseEmail(identity.email))) return true;
  const via = identity.method === 'OAUTH2' ? 'oauth2' : 'ldap';
  try {
    await syncEmail(store, { type: 'SyncEmail', userId, via, email: identity.email, now }, context);
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'email_taken') return false;
    throw error;
  }
};

/**
 * The sign-in of someone an external provider has authenticated: find or (sign-up allowed) create
 * the user, sync the role when the provider gives one, start a session. The events are the same
 * as for a local user: UserCreated (auth method OAUTH2/LDAP, no password), RoleChanged (with
 * `syncedFrom`), SessionStarted.
 *
 * Matching: first the identity itself (OAuth2 client id + `sub`, LDAP unique id), whatever the
 * email now is; a user found so takes the provider's new email (EmailChanged), unless another
 * account holds it (`email_in_use`). Failing that, a user holding the email is taken only if it
 * signs in the same way (a pre-provisioned OAuth2 user, an LDAP user created before a unique id
 * was configured) and either carries exactly these provider ids, or has none and — for OAuth2 —
 * sign-up is off, as in the reference; the identity is then linked to it (ExternalIdentityLinked).
 * A local or other provider's account, or one holding another person's provider ids (a recycled
 * email), is never taken over.
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
  let userId = found?.profile?.userId ?? null;
  if (userId === null) {
    const match = await matchByEmail(store, identity);
    if (match.kind === 'refused') return { ok: false, code: identity.allowSignUp ? 'email_in_use' : 'sign_in_not_allowed' };
    if (match.kind === 'match') {
      userId = match.userId;
      const linked = await link(store, identity, userId, now, context);
      if (!linked) return { ok: false, code: 'sign_in_not_allowed' };
    }
  }
  if (userId !== null) {
    if (!(await followEmail(store, identity, userId, now, context))) return { ok: false, code: 'email_in_use' };
    return start(userId, false);
  }
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
