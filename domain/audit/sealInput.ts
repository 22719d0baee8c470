import type { Position } from '../eventstore/types.ts';

/**
 * What a seal covers of one event, as the log holds it. `metadata` is the canonical text of the
 * event's metadata (`canonicalMetadata`); `dataSha256` the SHA-256 of the event's data bytes as
 * stored (for an erased event: of the data it held before the erasure, kept with the row).
 */
export type SealInput = {
  readonly id: string;
  readonly position: Position;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  readonly metadata: string;
  readonly dataSha256: Buffer;
  /**
   * Set when the event's content was removed (retention or erasure): its row keeps the hash of the
   * data it held, which is what `dataSha256` is then, and `by` names the global position (seq) of
   * the removal record that erased it (null when the row names none: a removal nobody recorded).
   */
  readonly erasure: { readonly by: bigint | null } | null;
};

/**
 * Metadata is JSON (jsonb in Postgres, whose text form is its own): sealed as JSON.stringify of its
 * parsed value, which the database, an export file and an offline verifier all reproduce exactly.
 */
export const canonicalMetadata = (metadata: string | object): string =>
  JSON.stringify(typeof metadata === 'string' ? JSON.parse(metadata) : metadata);
