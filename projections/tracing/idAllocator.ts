import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';

export type IdKind = 'project' | 'trace' | 'span' | 'session';

export type IdAllocator = {
  /** The next row id of that kind, in log order (numbers: they stay far below 2^53). */
  next(kind: IdKind): number;
  /** Writes the counters back, in the batch's transaction. */
  flush(): Promise<void>;
};

/**
 * Row ids handed out in the order the projector meets events, so a replay hands out the same ids:
 * GlobalIDs a client holds stay valid across a rebuild. Callers allocate per event, never per
 * batch, because batch boundaries differ between the live run and a rebuild.
 */
export const loadIdAllocator = async (tx: DatabaseTransactionConnection): Promise<IdAllocator> => {
  const rows = await tx.any(sql.type(z.object({ kind: z.string(), last: z.bigint() }))`SELECT kind, last FROM tracing_ids`);
  const last = new Map(rows.map((r) => [r.kind, Number(r.last)]));
  const dirty = new Set<IdKind>();
  return {
    next(kind) {
      const id = (last.get(kind) ?? 0) + 1;
      last.set(kind, id);
      dirty.add(kind);
      return id;
    },
    async flush() {
      for (const kind of dirty) await tx.query(sql.unsafe`UPDATE tracing_ids SET last = ${last.get(kind)!} WHERE kind = ${kind}`);
      dirty.clear();
    },
  };
};
