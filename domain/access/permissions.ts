import type { Role } from '../identity/roles.ts';
import type { GrantRole } from './grantRole.ts';

export type PermissionRule = {
  /** Roles that hold it: a session user's role, or the role an API key acts with. */
  readonly roles: readonly Role[];
  /** `SERVICE_ADMIN_SECRET` as a bearer: the system user with admin power. */
  readonly adminSecret: boolean;
  /** Whether an API key may use it at all (keys never mint keys). */
  readonly apiKeys: boolean;
  /** Auth off means no identity: everything is open except what issues or lists credentials. */
  readonly whenAuthDisabled: boolean;
  /**
   * The project dimension. On a RESTRICTED project, the grant roles that hold this permission
   * there, whatever the user's global role (admins, system keys and the admin secret see every
   * project and keep their global answer). A user without a grant does not see the project at all
   * (404, never 403). `[]`: no grant holds it (admin-only rules). On an open project, and for
   * anything not in a project, only `roles` decide.
   */
  readonly grants: readonly GrantRole[];
  /**
   * `project`: only routes and fields acting on ONE project declare it, and they check that project
   * (`ProjectAccess.require`); a grant then also WIDENS it (a global viewer with a MEMBER grant passes
   * the edge for `ingest`, and the project check decides). `global`: the global role decides at
   * the edge; a project the route touches can still narrow it through `grants`.
   */
  readonly scope: 'global' | 'project';
};

const ALL: readonly Role[] = ['SYSTEM', 'ADMIN', 'MEMBER', 'VIEWER'];
const WRITERS: readonly Role[] = ['SYSTEM', 'ADMIN', 'MEMBER'];
const PEOPLE: readonly Role[] = ['ADMIN', 'MEMBER', 'VIEWER'];
const ADMIN: readonly Role[] = ['ADMIN'];
const ANY_GRANT: readonly GrantRole[] = ['VIEWER', 'ANNOTATOR', 'MEMBER'];
const ANNOTATORS: readonly GrantRole[] = ['ANNOTATOR', 'MEMBER'];
const MEMBER_GRANT: readonly GrantRole[] = ['MEMBER'];
const NO_GRANT: readonly GrantRole[] = [];
/** Admin-only and credential rules: no grant holds them, and no project narrows them. */
const G = { grants: NO_GRANT, scope: 'global' } as const;

/**
 * THE permission table: the seed's mutation matrix and REST matrix (docs/reference/seed.md, "Roles and
 * permissions") in one place. Every route,
 * GraphQL field and gRPC call names one of these; nothing else decides who may do what.
 * SYSTEM is the role of system API keys: it reads and writes like a member but is not an admin.
 *
 * The project dimension (issue 38, docs/ARCHITECTURE.md "Per-project access"): each rule also says
 * which grant roles hold it on a restricted project (`grants`) and whether a grant can widen it
 * (`scope: 'project'`). Adding a route or field that acts on a project:
 * - reads: declare `read` and fetch through the visibility-aware helpers (`resolveProject`, the
 *   `ProjectAccess.hidden` predicate in SQL): a hidden project answers 404 / null.
 * - writes to telemetry or annotations: declare the project-scoped permission (`ingest`,
 *   `annotate`, `telemetry.delete`) AND call `require(projectRowid)` once the project is known.
 * - other writes (`write`): the global role decides; `require` narrows it on a restricted project.
 * The route-walking test (test/api/identity/routeMatrix.test.ts) calls every route as an outsider
 * and as each grant on a restricted project.
 */
export const PERMISSIONS = {
  /** GET on any read endpoint, `GET /v1/user`: every role. */
  read: { roles: ALL, adminSecret: true, apiKeys: true, whenAuthDisabled: true, grants: ANY_GRANT, scope: 'global' },
  /** POST/PUT/PATCH/DELETE generally: admin and member; viewers get 403. */
  write: { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true, grants: MEMBER_GRANT, scope: 'global' },
  /** `POST /v1/traces` and OTLP gRPC: admin and member (and system keys). */
  ingest: { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true, grants: MEMBER_GRANT, scope: 'project' },
  /**
   * Write and delete annotations and notes on a project's spans, traces and sessions: writers, and
   * on a restricted project the ANNOTATOR and MEMBER grants.
   */
  annotate: { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true, grants: ANNOTATORS, scope: 'project' },
  /** Delete a project's spans, traces and sessions: writers, and the MEMBER grant on a restricted project. */
  'telemetry.delete': { roles: WRITERS, adminSecret: true, apiKeys: true, whenAuthDisabled: true, grants: MEMBER_GRANT, scope: 'project' },
  /** Create/delete users, list users, another user's info, change another's password or username or role. */
  'users.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /** Change own password and own username: every person (not the system user). */
  'users.self': { roles: PEOPLE, adminSecret: false, apiKeys: true, whenAuthDisabled: false, ...G },
  /** `PUT/DELETE /v1/projects/{id}` (restricting it too) and its grants. */
  'projects.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /** Create, change and delete trace retention policies; choose a project's policy (what expires is deleted for good). */
  'retention.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /** Add, override and delete model prices (the costs of LLM spans follow them). */
  'prices.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /**
   * Read the audit trail (`GET /v1/audit/events`, GraphQL `auditEvents`, Settings › Audit): who did
   * what to which resource. Admins only: it names every user, key and change.
   */
  'audit.read': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /** Create, update, delete secrets, list them, view their values. */
  'secrets.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /**
   * In the playground, send a stored secret where an admin has not bound it: name any secret
   * (`api_key_secret`), or call a base URL other than the provider's configured one with a stored
   * key. Secrets are admin-only to read, so sending them is too.
   */
  'playground.secrets': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: true, ...G },
  /** List one's own user keys (system principals own none and see an empty list). */
  'apikeys.own.list': { roles: ALL, adminSecret: true, apiKeys: true, whenAuthDisabled: false, ...G },
  /** Create one's own user key: people in a browser session only. */
  'apikeys.own.create': { roles: PEOPLE, adminSecret: false, apiKeys: false, whenAuthDisabled: false, ...G },
  /** Delete a user key: one's own, or anyone's with `apikeys.users.manage` (checked by the key decider). */
  'apikeys.own.delete': { roles: PEOPLE, adminSecret: true, apiKeys: true, whenAuthDisabled: false, ...G },
  /** List all users' keys; delete another user's key. */
  'apikeys.users.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: false, ...G },
  /** List and delete system keys. */
  'apikeys.system.manage': { roles: ADMIN, adminSecret: true, apiKeys: true, whenAuthDisabled: false, ...G },
  /** Create a system key: an admin session or the admin secret, never a key. */
  'apikeys.system.create': { roles: ADMIN, adminSecret: true, apiKeys: false, whenAuthDisabled: false, ...G },
} as const satisfies Record<string, PermissionRule>;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];
