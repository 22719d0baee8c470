import type { Principal } from './principal.ts';

/** The `actor` recorded in event metadata for a principal: the audit trail's "who". */
export const actorOf = (principal: Principal | null): string => {
  if (principal === null) return 'unauthenticated';
  switch (principal.kind) {
    case 'anonymous':
      return 'anonymous';
    case 'user':
      return `user:${principal.userId}`;
    case 'apiKey':
      return `apikey:${principal.keyId}`;
    case 'adminSecret':
      return 'system';
  }
};
