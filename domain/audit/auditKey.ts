import { createHash, createHmac } from 'node:crypto';

/**
 * The key the audit chain is sealed with. Keyed (from SERVICE_AUDIT_KEY, else SERVICE_SECRET), a
 * seal can only be recomputed by someone holding the key, so an edit to the log by anyone with
 * database access alone is caught. Unkeyed, the chain is still computed (with an empty key): it
 * catches accidents and edits that did not also recompute the chain, but whoever can write to the
 * database can recompute it (docs/AUDIT.md says so).
 */
export type AuditKey = {
  readonly key: Buffer;
  /** A short one-way name of the key, recorded with each checkpoint, so verify can say "wrong key". */
  readonly id: string;
  readonly keyed: boolean;
};

export const UNKEYED_ID = 'none';

/** HMAC-derived so that the audit key differs from every other key derived from the same secret. */
export const deriveAuditKey = (secret: string | null): AuditKey =>
  secret === null
    ? { key: Buffer.alloc(0), id: UNKEYED_ID, keyed: false }
    : {
        key: createHmac('sha256', secret).update('loupe audit seal key v1').digest(),
        id: `a-${createHash('sha256').update(`loupe audit key id\0${secret}`).digest('hex').slice(0, 12)}`,
        keyed: true,
      };
