import type { Permission } from './permissions.ts';
import { PERMISSIONS } from './permissions.ts';
import type { Principal } from './principal.ts';

export const can = (principal: Principal | null, permission: Permission): boolean => {
  const rule = PERMISSIONS[permission];
  if (principal === null) return false;
  switch (principal.kind) {
    case 'anonymous':
      return rule.whenAuthDisabled;
    case 'adminSecret':
      return rule.adminSecret;
    case 'apiKey':
      return rule.apiKeys && rule.roles.includes(principal.role);
    case 'user':
      return rule.roles.includes(principal.role);
  }
};
