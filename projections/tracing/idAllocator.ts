import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { idKindOf } from './tracingPartitions.ts';

/** The `tracing_ids` row holding the partition count (tracingLayout.ts). */
export const LAYOUT_KIND = 'partitions';

export type IdKind = 'project' | 'trace' | 'span' | 'session';

export type IdAllocator = {
  /** The next row id of that kind, in log order (numbers: they stay far below 2^53). */
  next(kind: IdKind): number;
  /** Writes the counters back, in the batch's transaction. */
  flush(): Promise<void>;
  /** In how many partitions the tables are laid out (tracingLayout.ts), read with the counters. */
  readonly layout: number;
};

const KINDS: readonly IdKind[] = ['project', 'trace', 'span', 'session'];

/**
 * Row ids handed out in the order the projector meets events, so a replay hands out the same ids:
 * GlobalIDs a client holds stay valid across a rebuild. Callers allocate per event, never per
 * batch, because batch boundaries differ between the live run and a rebuild. Each tracing
 * partition keeps its own counters (`idKindOf`) and counts every span event, its own rows or not,
 * so all partitions hand out the same ids at the same position (tracingPartitions.ts).
 */
export const loadIdAllocator = async (tx: DatabaseTransactionConnection, partition = 0): Promise<IdAllocator> => {
  const rowOf = new Map(KINDS.map((k) => [idKindOf(k, partition), k]));
  const rows = await tx.any(sql.type(z.object({ kind: z.string(), last: z.bigint() }))`
    SELECT kind, last FROM tracing_ids WHERE kind = ANY(${sql.array([...rowOf.keys(), LAYOUT_KIND], 'text')})`);
  const last = new Map(rows.filter((r) => r.kind !== LAYOUT_KIND).map((r) => [rowOf.get(r.kind)!, Number(r.last)]));
  const layout = Number(rows.find((r) => r.kind === LAYOUT_KIND)?.last ?? 1n);
  const dirty = new Set<IdKind>();
  return {
    layout,
    next(kind) {
      const id = (last.get(kind) ?? 0) + 1;
      last.set(kind, id);
      dirty.add(kind);
      return id;
    },
    async flush() {
      for (const kind of dirty)
        await tx.query(sql.unsafe`
          INSERT INTO tracing_ids (kind, last) VALUES (${idKindOf(kind, partition)}, ${last.get(kind)!})
          ON CONFLICT (kind) DO UPDATE SET last = excluded.last`);
      dirty.clear();
    },
  };
};
