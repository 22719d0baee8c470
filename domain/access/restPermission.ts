import type { Permission } from './permissions.ts';

/**
 * The `/v1` routes whose permission is not the default for their method (GET → `read`, anything
 * else → `write`). Paths as in the reference OpenAPI; parameters are matched by position, so
 * `/v1/users/:id` and `/v1/users/{user_id}` are the same route. The reference is
 * docs/reference/phoenix-openapi.json, the seed docs/reference/seed.md ("Roles and permissions").
 *
 * Deliberate choices where the reference and the seed differ (the seed wins):
 * - `POST /v1/chat/completions` is not listed: it is a POST, so viewers get 403 as the seed's
 *   REST table says, although the reference lets viewers through.
 * - Own user keys stay open to viewers: the seed's mutation table says every role may create and
 *   delete its own keys.
 */
export const REST_PERMISSION_OVERRIDES: Readonly<Record<string, Permission>> = {
  'GET /v1/users': 'users.manage',
  'POST /v1/users': 'users.manage',
  'DELETE /v1/users/{user_id}': 'users.manage',
  // Not in the reference's REST API (it uses GraphQL patchViewer / patchUser): our equivalents.
  'PATCH /v1/user': 'users.self',
  'PATCH /v1/users/{user_id}': 'users.manage',
  'PUT /v1/projects/{project_identifier}': 'projects.manage',
  'DELETE /v1/projects/{project_identifier}': 'projects.manage',
  'PUT /v1/secrets': 'secrets.manage',
  // The settings list shows each secret's owner: another user's info, which only admins may see.
  'GET /v1/secrets': 'secrets.manage',
  'POST /v1/traces': 'ingest',
  'POST /v1/projects/{project_identifier}/spans': 'ingest',
  // Per-project access (issue 38): telemetry deletion and annotations are project-scoped
  // permissions, so a grant on a restricted project holds them there (permissions.ts).
  'DELETE /v1/traces/{trace_identifier}': 'telemetry.delete',
  'DELETE /v1/spans/{span_identifier}': 'telemetry.delete',
  'DELETE /v1/sessions/{session_identifier}': 'telemetry.delete',
  'POST /v1/sessions/delete': 'telemetry.delete',
  'POST /v1/span_annotations': 'annotate',
  'POST /v1/trace_annotations': 'annotate',
  'POST /v1/session_annotations': 'annotate',
  'POST /v1/document_annotations': 'annotate',
  'POST /v1/span_notes': 'annotate',
  'POST /v1/trace_notes': 'annotate',
  'POST /v1/session_notes': 'annotate',
  'DELETE /v1/projects/{project_identifier}/span_annotations': 'annotate',
  'DELETE /v1/projects/{project_identifier}/trace_annotations': 'annotate',
  'DELETE /v1/projects/{project_identifier}/session_annotations': 'annotate',
  // Restricting a project and granting roles on it: admins (the grants read too: they name users).
  'GET /v1/projects/{project_identifier}/grants': 'projects.manage',
  'PUT /v1/projects/{project_identifier}/grants/{user_id}': 'projects.manage',
  'DELETE /v1/projects/{project_identifier}/grants/{user_id}': 'projects.manage',
  // Loupe's audit trail (not in the reference's REST API).
  'GET /v1/audit/events': 'audit.read',
  // Loupe's model prices (not in the reference's REST API).
  'POST /v1/model_prices': 'prices.manage',
  'DELETE /v1/model_prices': 'prices.manage',
  // Loupe's trace retention policies (Phoenix has them in GraphQL only, for admins).
  'POST /v1/trace_retention_policies': 'retention.manage',
  'PATCH /v1/trace_retention_policies/{policy_id}': 'retention.manage',
  'DELETE /v1/trace_retention_policies/{policy_id}': 'retention.manage',
  'PUT /v1/projects/{project_identifier}/trace_retention_policy': 'retention.manage',
  'GET /v1/user/api_keys': 'apikeys.own.list',
  'POST /v1/user/api_keys': 'apikeys.own.create',
  'DELETE /v1/user/api_keys/{api_key_id}': 'apikeys.own.delete',
  'GET /v1/users/api_keys': 'apikeys.users.manage',
  'GET /v1/system/api_keys': 'apikeys.system.manage',
  'POST /v1/system/api_keys': 'apikeys.system.create',
  'DELETE /v1/system/api_keys/{api_key_id}': 'apikeys.system.manage',
};

const routeKey = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/\{[^}/]*\}|:[A-Za-z0-9_]+/g, '{}').replace(/\/+$/, '')}`;

const OVERRIDES = new Map(
  Object.entries(REST_PERMISSION_OVERRIDES).map(([route, permission]) => {
    const [method, path] = route.split(' ') as [string, string];
    return [routeKey(method, path), permission] as const;
  }),
);

/** The permission a `/v1` route must declare, from its method and path template. */
export const restPermission = (method: string, pathTemplate: string): Permission =>
  OVERRIDES.get(routeKey(method, pathTemplate)) ?? (['GET', 'HEAD'].includes(method.toUpperCase()) ? 'read' : 'write');
