import type { Role } from '../identity/roles.ts';

export type PermissionRule = {
  /** Roles that hold it: a session user's role, or the role an API key acts with. */
  readonly roles: readonly Role[];
  /** `SERVICE_ADMIN_SECRET` as a bearer: the system user with admin power. */
  readonly adminSecret: boolean;
  /** Whether an API key may use it at all (keys never mint keys). */
  readonly apiKeys: boolean;
  /** Auth off means no identity: everything is open except what issues or lists credentials. */
  readonly whenAuthDisabled: boolean;
};

const ALL: readonly Role[] = ['SYSTEM', 'ADMIN', 'MEMBER', 'VIEWER'];
const WRITERS: readonly Role[] = ['SYSTEM', 'ADMIN', 'MEMBER'];
const PEOPLE: readonly Role[] = ['ADMIN', 'MEMBER', 'VIEWER'];
const ADMIN: readonly Role[] = ['ADMIN'];

/**
 * THE permission table: the seed's mutation matrix and REST matrix (docs/reference/seed.md, "Roles and
 * permissions") in one place. Every route,
 * GraphQL field and gRPC call names one of these; nothing else decides who may do what.
 * SYSTEM is the role of system API keys: it reads and writes like a member but is not an admin.
 */
export const PERMISSIONS = {
  /** GET on any read endpoint, `GET /v1/user`: every role. */
  read: { roles: ALL, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** POST/PUT/PATCH/DELETE generally: admin and member; viewers get 403. */
  write: { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** `POST /v1/traces` and OTLP gRPC: admin and member (and system keys). */
  ingest: { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** Create/delete users, list users, another user's info, change another's password or username or role. */
  'users.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** Change own password and own username: every person (not the system user). */
  'users.self': { roles: PEOPLE, adminSecret: false, apiKeys: true, whenAuthDisabled: false },
  /** `PUT/DELETE /v1/projects/{id}`. */
  'projects.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** Create, change and delete trace retention policies; choose a project's policy (what expires is deleted for good). */
  'retention.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** Add, override and delete model prices (the costs of LLM spans follow them). */
  'prices.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /**
   * Read the audit trail (`GET /v1/audit/events`, GraphQL `auditEvents`, Settings › Audit): who did
   * what to which resource. Admins only: it names every user, key and change.
   */
  'audit.read': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** Create, update, delete secrets, list them, view their values. */
  'secrets.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /**
   * In the playground, send a stored secret where an admin has not bound it: name any secret
   * (`api_key_secret`), or call a base URL other than the provider's configured one with a stored
   * key. Secrets are admin-only to read, so sending them is too.
   */
  'playground.secrets': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true },
  /** List one's own user keys (system principals own none and see an empty list). */
  'apikeys.own.list': { roles: ALL, adminSecret: true, apiKeys: true, whenAuthDisabled: false },
  /** Create one's own user key: people in a browser session only. */
  'apikeys.own.create': { roles: PEOPLE, adminSecret: false, apiKeys: false, whenAuthDisabled: false },
  /** Delete a user key: one's own, or anyone's with `apikeys.users.manage` (checked by the key decider). */
  'apikeys.own.delete': { roles: PEOPLE, adminSecret: true, apiKeys: true, whenAuthDisabled: false },
  /** List all users' keys; delete another user's key. */
  'apikeys.users.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: false },
  /** List and delete system keys. */
  'apikeys.system.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: false },
  /** Create a system key: an admin session or the admin secret, never a key. */
  'apikeys.system.create': { roles: ADMIN, adminSecret: true, apiKeys: false, whenAuthDisabled: false },
} as const satisfies Record<string, PermissionRule>;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];
