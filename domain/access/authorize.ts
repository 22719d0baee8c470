import { can } from './can.ts';
import type { Permission } from './permissions.ts';
import { PERMISSIONS } from './permissions.ts';
import type { Principal } from './principal.ts';

export type Authorization =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly status: 401 | 403; readonly code: string; readonly message: string };

const deny = (status: 401 | 403, code: string, message: string): Authorization => ({ allowed: false, status, code, message });

/**
 * `can`, with the answer the edge gives when it is no: 401 when nobody is identified, else 403
 * with the reason. Runs before the body is parsed, so a viewer sending garbage to an admin route
 * gets 403, not 422.
 */
export const authorize = (principal: Principal | null, permission: Permission, authEnvVariable = 'SERVICE_ENABLE_AUTH'): Authorization => {
  if (can(principal, permission)) return { allowed: true };
  if (principal === null) return deny(401, 'unauthenticated', 'Invalid token');
  const rule = PERMISSIONS[permission];
  switch (principal.kind) {
    case 'anonymous':
      return deny(
        403,
        'auth_disabled',
        `This action requires authentication to be enabled. Set the ${authEnvVariable} environment variable to true.`,
      );
    case 'adminSecret':
      return deny(403, 'admin_secret_forbidden', 'The admin secret cannot perform this action.');
    case 'apiKey':
      if (!rule.apiKeys) return deny(403, 'api_key_forbidden', 'API keys cannot create API keys');
      break;
    case 'user':
      break;
  }
  if (principal.role === 'SYSTEM' && permission.startsWith('apikeys.own.')) {
    return deny(403, 'system_key_forbidden', 'System API keys must be managed through the /system/api_keys endpoints.');
  }
  if (rule.roles.length === 1 && rule.roles[0] === 'ADMIN')
    return deny(403, 'admin_required', 'Only admin or system users can perform this action.');
  if (principal.role === 'VIEWER') return deny(403, 'viewer_forbidden', 'Viewers cannot perform this action.');
  return deny(403, 'forbidden', 'You do not have permission to perform this action.');
};
