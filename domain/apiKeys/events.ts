import type { DomainEvent } from '../decider.ts';

/**
 * `system`: belongs to the deployment, acts as the system user (role SYSTEM), survives the admin
 * who created it. `user`: acts as its owner with the owner's role at the time of each request,
 * and dies with the owner.
 */
export type ApiKeyKind = 'system' | 'user';

/** Never the key itself: only a SHA-256 of it, to check a presented key against. */
export type ApiKeyIssued = DomainEvent<
  'ApiKeyIssued',
  {
    readonly keyId: string;
    readonly kind: ApiKeyKind;
    /** The user a user key acts as; null for system keys. */
    readonly ownerUserId: string | null;
    /** Who created it (audit only; for the admin secret, the system user). */
    readonly createdBy: string;
    readonly name: string;
    readonly description: string | null;
    /** null = never expires. */
    readonly expiresAt: string | null;
    readonly keyHash: string;
    readonly at: string;
  }
>;

export type ApiKeyRevokedReason = 'deleted' | 'owner_deleted';

export type ApiKeyRevoked = DomainEvent<
  'ApiKeyRevoked',
  {
    readonly keyId: string;
    readonly kind: ApiKeyKind;
    readonly ownerUserId: string | null;
    readonly reason: ApiKeyRevokedReason;
    readonly at: string;
  }
>;

export type ApiKeyEvent = ApiKeyIssued | ApiKeyRevoked;
