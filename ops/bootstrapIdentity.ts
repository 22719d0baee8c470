import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.ts';
import type { EventStore, Position } from '../domain/eventstore/types.ts';
import type { CommandContext } from '../domain/handleCommand.ts';
import { createDefaultAdmin, createSystemUser, DEFAULT_ADMIN_PASSWORD } from '../domain/identity/builtInUsers.ts';
import { createUser } from '../domain/identity/createUser.ts';
import { loadUser } from '../domain/identity/loadUser.ts';
import type { PasswordHasher } from '../domain/identity/passwords.ts';
import { uniqueValueHolder } from '../domain/identity/uniqueValues.ts';
import type { AuthConfig } from './config.ts';

/**
 * Fixed ids for the built-in users: two processes bootstrapping one empty database create each
 * once (the second append finds the stream). They are also the reference's ids (`User:1`, `User:2`),
 * which its clients' tests hard-code.
 */
export const SYSTEM_USER_ID = '1';
export const DEFAULT_ADMIN_USER_ID = '2';

const CONTEXT: CommandContext = { actor: 'system', requestId: null };

const isTaken = (error: unknown): boolean =>
  error instanceof DomainError && (error.code === 'user_exists' || error.code === 'username_taken' || error.code === 'email_taken');

const later = (a: Position | null, b: Position | null): Position | null => b ?? a;

export type BootstrapInput = {
  readonly store: EventStore;
  readonly passwords: PasswordHasher;
  readonly auth: AuthConfig;
  readonly logger: Logger;
  readonly now?: () => Date;
};

/**
 * Runs at every start with auth enabled; idempotent. Creates the system user, the default admin
 * (`admin@localhost`, with SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD, which is read only here, when
 * the account is created) and each missing SERVICE_ADMINS entry (no usable password: they set one
 * through a reset). Entries whose username or email already exists are left as they are. Returns
 * the position of the last event written, for the caller to wait on.
 */
export const bootstrapIdentity = async ({
  store,
  passwords,
  auth,
  logger,
  now = () => new Date(),
}: BootstrapInput): Promise<Position | null> => {
  let position: Position | null = null;
  const at = () => now().toISOString();

  if ((await loadUser(store, SYSTEM_USER_ID)).status === 'absent') {
    try {
      position = later(position, (await createUser(store, createSystemUser(SYSTEM_USER_ID, at()), CONTEXT)).position);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'user_exists')) {
        throw new Error(
          `cannot create the system user: ${(error as Error).message} (another user holds the name "system" or system@localhost)`,
        );
      }
    }
  }

  if ((await loadUser(store, DEFAULT_ADMIN_USER_ID)).status === 'absent') {
    const hash = await passwords.hash(auth.defaultAdminInitialPassword || DEFAULT_ADMIN_PASSWORD);
    try {
      position = later(position, (await createUser(store, createDefaultAdmin(DEFAULT_ADMIN_USER_ID, hash, at()), CONTEXT)).position);
      logger.info('created the default admin admin@localhost; it must choose a new password at first login');
    } catch (error) {
      if (!isTaken(error)) throw error;
      if ((error as DomainError).code !== 'user_exists')
        logger.warn('default admin not created: its username or email belongs to another user');
    }
  }

  for (const admin of auth.admins) {
    const taken =
      (await uniqueValueHolder(store, 'username', admin.username)) !== null ||
      (await uniqueValueHolder(store, 'email', admin.email)) !== null;
    if (taken) continue;
    try {
      const result = await createUser(
        store,
        {
          type: 'CreateUser',
          userId: randomBytes(12).toString('hex'),
          username: admin.username,
          email: admin.email,
          role: 'ADMIN',
          // With password logins off, the account is claimed through the external provider by email.
          authMethod: auth.disableBasicAuth ? 'OAUTH2' : 'LOCAL',
          passwordHash: null,
          passwordNeedsReset: true,
          now: at(),
        },
        CONTEXT,
      );
      position = later(position, result.position);
      logger.info({ username: admin.username }, 'created an admin from SERVICE_ADMINS');
    } catch (error) {
      // Another process created it (or someone took the name) meanwhile: leave it as it is.
      if (!isTaken(error)) throw error;
    }
  }
  return position;
};
