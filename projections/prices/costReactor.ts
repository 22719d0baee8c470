import { sql, type CommonQueryMethods, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { builtInPrices } from '../../domain/prices/builtInPrices.ts';
import type { PriceEvent } from '../../domain/prices/events.ts';
import { compileNamePattern, matchSpecificity } from '../../domain/prices/namePattern.ts';
import type { Attributes, AttributeValue } from '../../domain/tracing/attributes.ts';
import type { BackgroundJob } from '../reactors/reactor.ts';
import { llmSpanCost } from '../tracing/llmSpanCost.ts';
import { loadPriceBook } from './loadPriceBook.ts';
import { recomputeSessions, recomputeTraces } from '../tracing/recompute.ts';

const TOKEN_KEYS = [
  'llm.model_name',
  'llm.provider',
  'llm.system',
  'llm.token_count.prompt',
  'llm.token_count.completion',
  'llm.token_count.prompt_details.cache_read',
  'llm.token_count.prompt_details.cache_write',
  'llm.token_count.prompt_details.audio',
  'llm.token_count.completion_details.audio',
];

const job = z.object({
  id: z.bigint(),
  from_time: z.string(),
  patterns: z.array(z.string()),
  model_names: z.array(z.string()).nullable(),
  after_span: z.bigint(),
});

const spanRow = z.object({ id: z.bigint(), trace_rowid: z.bigint(), start_time: z.string(), tokens: z.record(z.string(), z.unknown()) });

/** A stored (rendered, plain JSON) attribute back as the typed value the pricing reads. */
const typed = (v: unknown): AttributeValue => (typeof v === 'number' ? { float: v } : typeof v === 'string' ? { str: v } : null);

/** The stored model names any of the job's patterns matches: only their spans can change price. */
const modelNamesOf = async (tx: DatabaseTransactionConnection, patterns: readonly string[]): Promise<string[]> => {
  const compiled = patterns.flatMap((p) => {
    try {
      return [compileNamePattern(p)];
    } catch {
      return [];
    }
  });
  const names = await tx.anyFirst(sql.type(z.object({ llm_model_name: z.string() }))`
    SELECT DISTINCT llm_model_name FROM spans WHERE llm_model_name IS NOT NULL`);
  return names.filter((name) => compiled.some((c) => matchSpecificity(c, name) !== null));
};

/**
 * One chunk of the oldest cost job (applyPriceEvent.ts queues one per price change): the next
 * `chunkSize` LLM spans it reaches, by row id, priced again with the prices the read model holds
 * now, their traces and sessions summed again. Returns false when there was no job.
 *
 * The chunk runs holding the tracing read model's checkpoint rows (each partition's), as the projector's every
 * batch does: so it never interleaves with a batch (whose trace sums it would otherwise
 * overwrite with sums missing the batch's spans, or the reverse), yet ingest waits at most one
 * chunk. Spans the projector inserts meanwhile are priced by it with the same prices. Repeating
 * a chunk (a crash before its commit) prices the same spans the same way.
 */
export const workOffCostJob = async (pool: DatabasePool, chunkSize = 1000): Promise<boolean> =>
  pool.transaction(async (tx) => {
    // Every partition's row (tracingPartitions.ts), in name order as a rebuild takes them.
    await tx.query(sql.unsafe`
      SELECT 1 FROM projection_checkpoints WHERE name = 'tracing' OR name ~ '^tracing\.[0-9]+$' ORDER BY name FOR UPDATE`);
    const next = await tx.maybeOne(sql.type(job)`
      SELECT id, to_json(from_time)#>>'{}' AS from_time, patterns, model_names, after_span FROM cost_jobs ORDER BY id LIMIT 1`);
    if (next === null) return false;
    const names = next.model_names ?? (await modelNamesOf(tx, next.patterns));
    if (next.model_names === null)
      await tx.query(sql.unsafe`UPDATE cost_jobs SET model_names = ${sql.array(names, 'text')} WHERE id = ${next.id}`);
    const spans =
      names.length === 0
        ? []
        : await tx.any(sql.type(spanRow)`
          SELECT id, trace_rowid, to_json(start_time)#>>'{}' AS start_time,
            jsonb_build_object(${sql.join(
              TOKEN_KEYS.map((k) => sql.fragment`${k}::text, attributes->${k}`),
              sql.fragment`, `,
            )}) AS tokens
          FROM spans
          WHERE llm_model_name = ANY(${sql.array(names, 'text')}) AND start_time >= ${next.from_time}::timestamptz AND id > ${next.after_span}
          ORDER BY id LIMIT ${chunkSize}`);
    if (spans.length === 0) {
      await tx.query(sql.unsafe`DELETE FROM cost_jobs WHERE id = ${next.id}`);
      return true;
    }
    const prices = await loadPriceBook(tx, builtInPrices());
    const costs = spans.map((s) => {
      const attributes: Attributes = Object.fromEntries(Object.entries(s.tokens).map(([k, v]) => [k, typed(v)]));
      return llmSpanCost(prices, 'LLM', attributes, s.start_time).cost;
    });
    const column = (pick: (i: number) => number | null) =>
      sql.array(
        spans.map((_, i) => pick(i)),
        'float8',
      );
    await tx.query(sql.unsafe`
      UPDATE spans s SET cost_prompt = x.prompt, cost_completion = x.completion, cost_total = x.total
      FROM unnest(${sql.array(
        spans.map((s) => s.id),
        'int8',
      )}, ${column((i) => costs[i]?.prompt ?? null)}, ${column((i) => costs[i]?.completion ?? null)}, ${column((i) => costs[i]?.total ?? null)})
        AS x(id, prompt, completion, total)
      WHERE s.id = x.id`);
    await recomputeSessions(tx, await recomputeTraces(tx, [...new Set(spans.map((s) => Number(s.trace_rowid)))]));
    await tx.query(sql.unsafe`UPDATE cost_jobs SET after_span = ${spans.at(-1)!.id} WHERE id = ${next.id}`);
    return true;
  });

/** Reprice the spans the queued cost jobs reach (applyPriceEvent.ts queues one per price change). */
export type RepriceSpans = {
  readonly type: 'RepriceSpans';
  /** The queued jobs, oldest first: LLM spans from `from` on whose model one of `patterns` matches. */
  readonly jobs: readonly { readonly from: string; readonly patterns: readonly string[] }[];
};

const PRICE_EVENTS: readonly PriceEvent['type'][] = ['ModelPriceSet', 'ModelPriceDeleted'];

/** The cost jobs the read model holds: one command for all of them, or none. */
const queuedJobs = async (db: CommonQueryMethods): Promise<RepriceSpans[]> => {
  const jobs = await db.any(sql.type(z.object({ from: z.string(), patterns: z.array(z.string()) }))`
    SELECT to_json(from_time)#>>'{}' AS from, patterns FROM cost_jobs ORDER BY id`);
  return jobs.length === 0 ? [] : [{ type: 'RepriceSpans', jobs: jobs.map((j) => ({ from: j.from, patterns: j.patterns })) }];
};

/**
 * Reprices stored spans after a price change, a background job (it writes the spans' costs and
 * appends nothing): the tracing projector queues a
 * cost job with the price event (so ingest never waits for a repricing), this reactor reacts to
 * the price events once the read models have applied them, and works the jobs off chunk by chunk
 * (`workOffCostJob`). Its schedule picks up jobs left by a crash, by a budget running out or by
 * a rebuild of the tracing read model (which queues the jobs of the price events it replays).
 *
 * `issue` works for at most `budgetMs`, so a shutdown waits at most that long (the other reactors
 * run on lanes of their own); what is left waits for the next schedule. Issuing again reprices what remains, and a
 * repeated chunk prices the same spans the same way: idempotent, as the runner needs.
 */
export const costReactor = (deps: {
  readonly pool: DatabasePool;
  readonly everyMs?: number;
  readonly budgetMs?: number;
  readonly chunkSize?: number;
}): BackgroundJob<RepriceSpans> => ({
  name: 'costs',
  kind: 'background-job',
  eventTypes: PRICE_EVENTS,
  afterReadModels: true,
  react: async (_events, { db }) => queuedJobs(db),
  schedule: { everyMs: deps.everyMs ?? 1000, react: async ({ db }) => queuedJobs(db) },
  async issue() {
    const until = performance.now() + (deps.budgetMs ?? 5000);
    while (performance.now() < until && (await workOffCostJob(deps.pool, deps.chunkSize))) {
      // one chunk after another, each its own transaction
    }
  },
});
