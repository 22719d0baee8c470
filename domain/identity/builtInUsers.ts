import type { CreateUser } from './commands.ts';

export const SYSTEM_USERNAME = 'system';
export const SYSTEM_EMAIL = 'system@localhost';
export const DEFAULT_ADMIN_USERNAME = 'admin';
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
/** Used when `SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD` is unset or empty. */
export const DEFAULT_ADMIN_PASSWORD = 'admin';

/**
 * The system user: what system API keys and the admin secret act as. It has no usable password.
 * Bootstrap should use a fixed id for it (and for the default admin), so two processes starting
 * on one empty database create it once: the second append finds the stream and fails.
 */
export const createSystemUser = (userId: string, now: string): CreateUser => ({
  type: 'CreateUser',
  userId,
  username: SYSTEM_USERNAME,
  email: SYSTEM_EMAIL,
  role: 'SYSTEM',
  authMethod: 'LOCAL',
  passwordHash: null,
  passwordNeedsReset: false,
  builtIn: 'system',
  now,
});

/** The default admin, with the hash of the initial password; it must choose its own at first login. */
export const createDefaultAdmin = (userId: string, passwordHash: string, now: string): CreateUser => ({
  type: 'CreateUser',
  userId,
  username: DEFAULT_ADMIN_USERNAME,
  email: DEFAULT_ADMIN_EMAIL,
  role: 'ADMIN',
  authMethod: 'LOCAL',
  passwordHash,
  passwordNeedsReset: true,
  builtIn: 'default_admin',
  now,
});
