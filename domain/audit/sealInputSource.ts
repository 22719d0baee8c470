import type { Position } from '../eventstore/types.ts';
import type { SealInput } from './sealInput.ts';

/**
 * How the sealer and `loupe audit verify` read the log: what each seal covers, in global order,
 * without the event data itself (only its hash). Each log backend provides one.
 */
export interface SealInputSource {
  /**
   * Up to `maxEvents` events strictly after `after`, in global order, below the horizon readAll
   * uses (nothing can still commit before them); fewer when their data would exceed `maxBytes`
   * together (always at least one).
   */
  read(after: Position, maxEvents: number, maxBytes: number): Promise<SealInput[]>;
  /** The same, each with its data as stored (UTF-8 text): for an export an auditor checks offline. */
  readWithData(after: Position, maxEvents: number, maxBytes: number): Promise<Array<SealInput & { readonly dataText: string }>>;
}
