import type { ApiKeyKind } from '../apiKeys/events.ts';
import type { Role } from '../identity/roles.ts';

/**
 * Who is asking. With auth on, a request with no valid credential has no principal (null) and is
 * answered 401 before any permission is looked at.
 */
export type Principal =
  /** Auth is disabled: nobody is identified. */
  | { readonly kind: 'anonymous' }
  /** A browser session (access token) of a user, with the user's current role. */
  | { readonly kind: 'user'; readonly userId: string; readonly role: Role }
  /**
   * An API key. A user key acts as its owner with the owner's role at the time of the request;
   * a system key acts as the system user with role SYSTEM.
   */
  | { readonly kind: 'apiKey'; readonly keyId: string; readonly keyKind: ApiKeyKind; readonly userId: string; readonly role: Role }
  /** `SERVICE_ADMIN_SECRET` as a bearer: the system user with admin power. */
  | { readonly kind: 'adminSecret'; readonly userId: string };

/** The user a principal acts as (null when auth is off). */
export const actingUserId = (principal: Principal): string | null => (principal.kind === 'anonymous' ? null : principal.userId);

/** Admin power: role ADMIN (session or key) or the admin secret. System keys are not admins. */
export const isAdmin = (principal: Principal): boolean =>
  principal.kind === 'adminSecret' || ((principal.kind === 'user' || principal.kind === 'apiKey') && principal.role === 'ADMIN');
