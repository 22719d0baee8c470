import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setModelPrice } from '../../../domain/prices/priceCommands.ts';
import { createProject, deleteProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rawSql, splitStatements } from '../../../projections/migrate.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { workOffCostJob } from '../../../projections/prices/costReactor.ts';
import { DAY_ROLLUP_BACKFILL, TRACE_ROLLUP_BACKFILL, TRACE_ROLLUP_TABLES } from '../../../projections/metrics/traceRollup.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, rows, tracingHarness, type Harness } from '../tracing/tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing projection: the metrics rollup', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const projectId = async (h: Harness, name: string) => {
  const s = await loadProject(h.store, name);
  if (s.status !== 'active') throw new Error(`${name} is not active`);
  return s.projectId;
};

const span = (
  traceId: string,
  at: string,
  ms: number,
  extra: { parentId?: string; error?: boolean; prompt?: number; session?: string } = {},
) =>
  spanRecord({
    traceId,
    parentId: extra.parentId ?? null,
    spanKind: extra.prompt === undefined ? 'CHAIN' : 'LLM',
    status: { code: extra.error ? 'ERROR' : 'OK', message: '' },
    startTimeUnixNano: nanos(at),
    endTimeUnixNano: nanos(at, BigInt(ms) * 1_000_000n),
    attributes: attrs({
      ...(extra.prompt === undefined
        ? {}
        : {
            'openinference.span.kind': 'LLM',
            'llm.model_name': 'gpt-4o-mini',
            'llm.token_count.prompt': extra.prompt,
            'llm.token_count.completion': 7,
          }),
      ...(extra.session ? { 'session.id': extra.session } : {}),
    }),
  });

/**
 * What moves a trace's contribution: new traces in several hours and projects, a late span that
 * moves a trace into an earlier hour and makes it longer and failed, a repricing, and every kind
 * of deletion (span, trace, session, expiry, project).
 */
const writeHistory = async (h: Harness) => {
  await createProject(h.store, { name: 'alpha', description: null, gradientStartColor: '#000000' }, context);
  const traces = Array.from({ length: 10 }, () => newTraceId());
  const roots = traces.map((t, i) =>
    span(t, `2026-11-20T1${i % 3}:${10 + i}:00Z`, 50 * (i + 1), { prompt: 100 * i, error: i === 4, session: `s${i % 4}` }),
  );
  await ingestSpans(h.store, [batch('alpha', roots.slice(0, 6)), batch('beta', roots.slice(6))], context);
  // Trace 1 gets a child that starts an hour earlier, runs long and fails: another hour, another bin, an error.
  await ingestSpans(
    h.store,
    [batch('alpha', [span(traces[1]!, '2026-11-20T09:59:00Z', 90_000, { parentId: roots[1]!.spanId, error: true })])],
    context,
  );
  const expiring = newTraceId();
  await ingestSpans(
    h.store,
    [batch('alpha', [span(expiring, '2026-11-20T11:40:00Z', 30, { prompt: 3, error: true, session: 's1' })])],
    context,
  );
  await setModelPrice(
    h.store,
    {
      model: 'gpt-4o-mini',
      namePattern: 'gpt-4o-mini',
      provider: null,
      effectiveFrom: '2026-11-20T11:00:00Z',
      prices: [{ tokenType: 'input', usdPerToken: 1e-6, threshold: null }],
    },
    context,
  );
  await h.project();
  await drain(h);
  const alpha = await projectId(h, 'alpha');
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteSpans', projectId: alpha, spanIds: [roots[2]!.spanId] }, context);
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteTraces', projectId: alpha, traceIds: [traces[3]!] }, context);
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteSessions', projectId: alpha, sessionIds: ['s0'] }, context);
  // A policy run: a trace sharing its hour with trace 1, and trace 2 (already gone with its only span).
  await deleteTelemetry(
    h.store,
    'alpha',
    { type: 'ExpireTraces', projectId: alpha, policyId: '1', startedBefore: null, maxTraces: 3, traceIds: [expiring, traces[2]!] },
    context,
  );
  await ingestSpans(h.store, [batch('gamma', [span(newTraceId(), '2026-11-20T10:30:00Z', 10, { prompt: 5 })])], context);
  await deleteProject(h.store, 'gamma', { projectId: await projectId(h, 'gamma'), defaultProjectName: 'default' }, context);
  await h.project();
};

const drain = async (h: Harness) => {
  while (await workOffCostJob(h.db.pool, 2)) {
    // the reactor's chunks
  }
};

const rollup = async (h: Harness) => {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of TRACE_ROLLUP_TABLES)
    out[table] = await rows(h.db.pool, sql.unsafe`SELECT * FROM ${sql.identifier([table])} ORDER BY 1, 2, 3`);
  return out;
};

test('after ingest, late spans, a repricing and every kind of deletion, the rollup equals a recount of the traces there are', async ({
  h,
}) => {
  await writeHistory(h);
  const live = await rollup(h);
  assert.ok((live.trace_metric_hours?.length ?? 0) >= 4, `${live.trace_metric_hours?.length} rows`);
  assert.ok(
    live.trace_metric_hours!.some((r) => Number(r.cost_count) > 0 && Number(r.error_count) > 0),
    'costs and errors are in it',
  );
  const [early] = await rows(
    h.db.pool,
    sql.unsafe`SELECT to_json(hour)#>>'{}' AS hour, trace_count FROM trace_metric_hours ORDER BY hour LIMIT 1`,
  );
  assert.equal(early, { hour: '2026-11-20T09:00:00+00:00', trace_count: 1 }, 'the trace a late span moved an hour earlier');
  // The recount: the migration's backfill on emptied tables, inside a transaction rolled back.
  await h.db.pool
    .transaction(async (tx) => {
      for (const table of TRACE_ROLLUP_TABLES) await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])}`);
      for (const statement of splitStatements(TRACE_ROLLUP_BACKFILL + DAY_ROLLUP_BACKFILL)) await tx.query(rawSql(statement));
      const recount: Record<string, unknown[]> = {};
      for (const table of TRACE_ROLLUP_TABLES)
        recount[table] = [...(await tx.any(sql.unsafe`SELECT * FROM ${sql.identifier([table])} ORDER BY 1, 2, 3`))];
      assert.equal(recount, live);
      throw new Error('rolled back');
    })
    .catch((error: Error) => assert.is(error.message, 'rolled back'));
});

test('a rebuild gives the live rollup, to the last digit', async ({ h }) => {
  await writeHistory(h);
  const live = await rollup(h);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 3, storeInTransaction: h.storeInTransaction });
  // The replayed price event queued its repricing again, as live: the reactor works it off.
  await drain(h);
  assert.equal(await rollup(h), live);
});

test.run();
