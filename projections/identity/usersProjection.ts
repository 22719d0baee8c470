import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { SessionTokens } from '../../domain/identity/events.ts';
import { storedOptionalText, storedText } from '../../domain/base/textRule.ts';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';
import { usersMigrations } from './usersMigrations.ts';

const USER_EVENT_TYPES = [
  'UserCreated',
  'UsernameChanged',
  'ExternalIdentityLinked',
  'EmailChanged',
  'PasswordChanged',
  'RoleChanged',
  'UserDeleted',
  'SessionStarted',
  'SessionRefreshed',
  'SessionsRevoked',
  'PasswordResetRequested',
] as const;
const USER_EVENTS = new Set<string>(USER_EVENT_TYPES);

const insertSession = async (tx: DatabaseTransactionConnection, userId: string, s: SessionTokens) => {
  await tx.query(sql.unsafe`
    INSERT INTO auth_tokens (token_id, kind, user_id, paired_token_id, expires_at) VALUES
      (${s.accessTokenId}, 'access', ${userId}, ${s.refreshTokenId}, ${s.accessExpiresAt}::timestamptz),
      (${s.refreshTokenId}, 'refresh', ${userId}, ${s.accessTokenId}, ${s.refreshExpiresAt}::timestamptz)
    ON CONFLICT (token_id) DO NOTHING`);
};

const applyOne = async (tx: DatabaseTransactionConnection, stored: StoredEvent): Promise<void> => {
  const event = loupeEvent(stored);
  switch (event.type) {
    case 'UserCreated': {
      const d = event.data;
      await tx.query(sql.unsafe`
        INSERT INTO users (user_id, ordinal, username, email, role, auth_method, password_needs_reset, built_in,
                           oauth2_client_id, oauth2_user_id, ldap_unique_id, created_at, updated_at)
        VALUES (${d.userId}, ${stored.position.seq}, ${storedText(d.username)}, ${storedOptionalText(d.email)}, ${d.role}, ${d.authMethod},
                ${d.passwordNeedsReset}, ${d.builtIn}, ${storedOptionalText(d.oauth2ClientId)}, ${storedOptionalText(d.oauth2UserId)},
                ${storedOptionalText(d.ldapUniqueId)}, ${d.at}::timestamptz, ${d.at}::timestamptz)
        ON CONFLICT (user_id) DO NOTHING`);
      return;
    }
    case 'UsernameChanged':
      await tx.query(
        sql.unsafe`UPDATE users SET username = ${storedText(event.data.username)}, updated_at = ${event.data.at}::timestamptz WHERE user_id = ${event.data.userId}`,
      );
      return;
    case 'ExternalIdentityLinked': {
      const d = event.data;
      await tx.query(sql.unsafe`
        UPDATE users SET oauth2_client_id = ${storedOptionalText(d.oauth2ClientId)}, oauth2_user_id = ${storedOptionalText(d.oauth2UserId)},
                         ldap_unique_id = ${storedOptionalText(d.ldapUniqueId)}, updated_at = ${d.at}::timestamptz
         WHERE user_id = ${d.userId}`);
      return;
    }
    case 'EmailChanged':
      await tx.query(
        sql.unsafe`UPDATE users SET email = ${storedText(event.data.email)}, updated_at = ${event.data.at}::timestamptz WHERE user_id = ${event.data.userId}`,
      );
      return;
    case 'RoleChanged':
      await tx.query(
        sql.unsafe`UPDATE users SET role = ${event.data.role}, updated_at = ${event.data.at}::timestamptz WHERE user_id = ${event.data.userId}`,
      );
      return;
    case 'PasswordChanged': {
      const d = event.data;
      await tx.query(
        sql.unsafe`UPDATE users SET password_needs_reset = ${d.needsReset}, updated_at = ${d.at}::timestamptz WHERE user_id = ${d.userId}`,
      );
      await tx.query(sql.unsafe`DELETE FROM auth_tokens WHERE user_id = ${d.userId} AND kind = 'reset'`);
      return;
    }
    case 'UserDeleted':
      await tx.query(sql.unsafe`DELETE FROM auth_tokens WHERE user_id = ${event.data.userId}`);
      await tx.query(sql.unsafe`DELETE FROM users WHERE user_id = ${event.data.userId}`);
      return;
    case 'SessionStarted': {
      const d = event.data;
      // Pruned against the event's own time, not the clock, so a rebuild yields the same rows.
      await tx.query(sql.unsafe`DELETE FROM auth_tokens WHERE user_id = ${d.userId} AND expires_at <= ${d.at}::timestamptz`);
      await insertSession(tx, d.userId, d);
      return;
    }
    case 'SessionRefreshed': {
      const d = event.data;
      await tx.query(sql.unsafe`
        DELETE FROM auth_tokens WHERE token_id = ${d.consumedRefreshTokenId}
           OR (kind = 'access' AND paired_token_id = ${d.consumedRefreshTokenId})`);
      await insertSession(tx, d.userId, d);
      return;
    }
    case 'SessionsRevoked':
      await tx.query(sql.unsafe`DELETE FROM auth_tokens WHERE user_id = ${event.data.userId} AND kind IN ('access', 'refresh')`);
      return;
    case 'PasswordResetRequested': {
      const d = event.data;
      await tx.query(sql.unsafe`DELETE FROM auth_tokens WHERE user_id = ${d.userId} AND kind = 'reset'`);
      await tx.query(sql.unsafe`
        INSERT INTO auth_tokens (token_id, kind, user_id, paired_token_id, expires_at)
        VALUES (${d.tokenId}, 'reset', ${d.userId}, NULL, ${d.expiresAt}::timestamptz)
        ON CONFLICT (token_id) DO NOTHING`);
      return;
    }
    case 'LoginSucceeded':
    case 'LoginFailed':
    case 'AccountLocked':
      return;
  }
};

/**
 * Users as the REST API lists them, and the ids and expiries of live session and reset tokens
 * (what the auth live model loads at start). No password hash: logins read the user's stream.
 */
export const usersProjection: Projection = {
  name: 'users',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: USER_EVENT_TYPES,
  tables: ['users', 'auth_tokens'],
  migrations: usersMigrations,
  apply: async (tx, events) => {
    for (const event of events) if (USER_EVENTS.has(event.type)) await applyOne(tx, event);
  },
};
