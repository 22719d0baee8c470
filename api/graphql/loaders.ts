import DataLoader from 'dataloader';
import type { DatabasePool } from 'slonik';
import type { EncryptedValue } from '../../domain/secrets/crypto.ts';
import { sealedSecretValues } from '../../projections/secrets/secretValueQueries.ts';
import { projectsByIds, type ProjectRow } from '../../projections/projects/projectQueries.ts';
import {
  projectSummaries,
  traceLatencyQuantiles,
  type ProjectSummaryRow,
  type TimeWindow,
} from '../../projections/tracing/projectSummaryQueries.ts';
import {
  childCounts,
  rootSpansOfTraces,
  sessionsByIds,
  sessionsByOtelIds,
  spansByIds,
  spansByOtelIds,
  tracesByIds,
  tracesByOtelIds,
  type FullSpanRow,
  type SessionDetailRow,
  type TraceDetailRow,
} from '../../projections/tracing/graphQueries.ts';
import { findUsers, type UserRow } from '../../projections/identity/userQueries.ts';

/** A loader answering each key from one batched lookup (missing keys → null; so are rows `shown` refuses). */
const byKey = <K, R, C = K>(
  fetch: (keys: readonly K[]) => Promise<readonly R[] | Map<C, R>>,
  keyOf: (row: R) => C,
  cacheKey?: (k: K) => C,
  shown: (row: R) => boolean = () => true,
) =>
  new DataLoader<K, R | null, C>(
    async (keys) => {
      const rows = await fetch(keys);
      const map =
        rows instanceof Map
          ? new Map([...rows].filter(([, r]) => shown(r)))
          : new Map((rows as readonly R[]).filter(shown).map((r) => [keyOf(r), r]));
      return keys.map((k) => map.get(cacheKey ? cacheKey(k) : (k as unknown as C)) ?? null);
    },
    cacheKey ? { cacheKeyFn: cacheKey } : {},
  );

export type SummaryKey = { readonly projectRowid: number; readonly window: TimeWindow };
export type QuantileKey = SummaryKey & { readonly probability: number };

const windowKey = (w: TimeWindow) => `${w.start}|${w.end}`;
export type ChildKey = { readonly traceRowid: number; readonly spanId: string };

/**
 * Per-request batch loaders: every nested field that needs a row asks its loader, and the keys
 * asked in one tick go to the database as ONE statement, so a page costs the same number of
 * queries whatever its size (no N+1). One set per request: nothing is cached across requests.
 */
export const createLoaders = (pool: DatabasePool, hiddenProjects: readonly number[] = []) => {
  // Restricted projects the caller has no grant on (ProjectAccess.hidden): their projects, traces,
  // spans and sessions load as null, as an unknown id does, so `node(id:)` and every nested
  // lookup answer as if they did not exist.
  const hidden = new Set(hiddenProjects);
  const inVisibleProject = (r: { readonly project_id: number }) => !hidden.has(r.project_id);
  return {
    project: byKey<number, ProjectRow>(
      (k) => projectsByIds(pool, k),
      (r) => r.id,
      undefined,
      (r) => !hidden.has(r.id),
    ),
    trace: byKey<number, TraceDetailRow>(
      (k) => tracesByIds(pool, k),
      (r) => r.id,
      undefined,
      inVisibleProject,
    ),
    traceByOtelId: byKey<string, TraceDetailRow>(
      (k) => tracesByOtelIds(pool, k),
      (r) => r.trace_id,
      undefined,
      inVisibleProject,
    ),
    span: byKey<number, FullSpanRow>(
      (k) => spansByIds(pool, k),
      (r) => r.id,
      undefined,
      inVisibleProject,
    ),
    spanByOtelId: byKey<string, FullSpanRow>(
      (k) => spansByOtelIds(pool, k),
      (r) => r.span_id,
      undefined,
      inVisibleProject,
    ),
    rootSpan: byKey<number, FullSpanRow>(
      (k) => rootSpansOfTraces(pool, k),
      (r) => r.trace_rowid,
      undefined,
      inVisibleProject,
    ),
    session: byKey<number, SessionDetailRow>(
      (k) => sessionsByIds(pool, k),
      (r) => r.id,
      undefined,
      inVisibleProject,
    ),
    sessionByOtelId: byKey<string, SessionDetailRow>(
      (k) => sessionsByOtelIds(pool, k),
      (r) => r.session_id,
      undefined,
      inVisibleProject,
    ),
    user: byKey<string, UserRow>(
      async (k) => findUsers(pool, k),
      (r) => r.userId,
    ),
    sealedSecret: new DataLoader<string, EncryptedValue | null>(async (keys) => {
      const found = await sealedSecretValues(pool, keys);
      return keys.map((k) => found.get(k) ?? null);
    }),
    childCount: new DataLoader<ChildKey, number, string>(
      async (keys) => {
        const counts = await childCounts(pool, keys);
        return keys.map((k) => counts.get(k.spanId) ?? 0);
      },
      { cacheKeyFn: (k) => k.spanId },
    ),
    /** Batched per time window: the projects of one page share theirs. */
    projectSummary: new DataLoader<SummaryKey, ProjectSummaryRow, string>(
      async (keys) => {
        const windows = new Map<string, { window: TimeWindow; ids: number[] }>();
        for (const k of keys) {
          const w = `${k.window.start}|${k.window.end}`;
          if (!windows.has(w)) windows.set(w, { window: k.window, ids: [] });
          windows.get(w)!.ids.push(k.projectRowid);
        }
        const results = new Map<string, ProjectSummaryRow>();
        for (const [w, { window, ids }] of windows) {
          for (const [id, row] of await projectSummaries(pool, ids, window)) results.set(`${id}|${w}`, row);
        }
        return keys.map((k) => results.get(`${k.projectRowid}|${k.window.start}|${k.window.end}`)!);
      },
      { cacheKeyFn: (k) => `${k.projectRowid}|${k.window.start}|${k.window.end}` },
    ),
    /** Batched per (probability, window). */
    latencyQuantile: new DataLoader<QuantileKey, number | null, string>(
      async (keys) => {
        const groups = new Map<string, { key: QuantileKey; ids: number[] }>();
        for (const k of keys) {
          const g = `${k.probability}|${windowKey(k.window)}`;
          if (!groups.has(g)) groups.set(g, { key: k, ids: [] });
          groups.get(g)!.ids.push(k.projectRowid);
        }
        const results = new Map<string, number | null>();
        for (const [g, { key, ids }] of groups) {
          for (const [id, ms] of await traceLatencyQuantiles(pool, ids, key.probability, key.window)) results.set(`${id}|${g}`, ms);
        }
        return keys.map((k) => results.get(`${k.projectRowid}|${k.probability}|${windowKey(k.window)}`) ?? null);
      },
      { cacheKeyFn: (k) => `${k.projectRowid}|${k.probability}|${windowKey(k.window)}` },
    ),
  };
};

export type Loaders = ReturnType<typeof createLoaders>;
