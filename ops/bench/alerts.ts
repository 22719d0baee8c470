/**
 * Alerts benchmark: `npm run bench:alerts [-- options]`.
 *
 * Times one evaluation interval of N alert rules (projections/alerts/alertEvaluationReactor.ts:
 * every rule due, its window and a regression's baseline measured by
 * projections/metrics/windowMetric.ts, the verdict, the last evaluation upserted, transitions
 * appended) on a project of M spans. The tracing read model is written in SQL (seedTraceRows.ts),
 * the rules straight into the alerts read model: a mix of every trace metric, windows of 1 minute
 * to 1 day (whole hours read from the rollup), thresholds and regressions.
 *
 *   --backend postgres|pglite   (default postgres)
 *   --rules N                   (default 1000)
 *   --spans N                   (default 1000000)
 *   --spans-per-trace N         (default 7)
 *   --hours N                   spread of start times, ending now (default 24: the densest day)
 *   --intervals N               timed intervals (default 5, after 1 warm-up)
 *   --distinct-windows          every rule a window of its own (+i seconds), so no two share a measurement (the worst case)
 *   --pg-url URL                (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'slonik';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { alertEvaluationReactor } from '../../projections/alerts/alertEvaluationReactor.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { benchAlertRule } from './alertRuleMix.ts';
import { percentile } from './percentile.ts';
import { createScratchDatabase, DEFAULT_PG_URL, postgresVersion } from './scratchDatabase.ts';
import { seedTraceRows } from './seedTraceRows.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    rules: { type: 'string', default: '1000' },
    spans: { type: 'string', default: '1000000' },
    'spans-per-trace': { type: 'string', default: '7' },
    hours: { type: 'string', default: '24' },
    intervals: { type: 'string', default: '5' },
    'distinct-windows': { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
  },
});

const log = (message: string) => process.stderr.write(`[bench:alerts] ${message}\n`);
const main = async () => {
  const rules = Number(args.rules);
  const spans = Number(args.spans);
  const intervals = Number(args.intervals);
  const spreadMs = Number(args.hours) * 3_600_000;
  const scratch = args.backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_a') : null;
  const dir = scratch === null ? await mkdtemp(join(tmpdir(), 'loupe-bench-a-')) : null;
  const db = await openDatabase(scratch !== null ? { url: scratch.url } : { pgliteDataDir: join(dir!, 'pgdata') });
  try {
    await migrate(db.pool, allMigrations());
    const start = Date.now();
    const { traces } = await seedTraceRows(db.pool, { spans, perTrace: Number(args['spans-per-trace']), spreadMs, endMs: start }, log);
    await db.pool.query(sql.unsafe`
      INSERT INTO alert_rules (alert_id, project_id, name, rule, state, state_since, created_at, updated_at, ordinal)
      SELECT r.id, (SELECT project_id FROM projects WHERE id = 1), r.rule->>'name', r.rule, 'NO_DATA', now(), now(), now(), r.n
      FROM jsonb_to_recordset(${sql.jsonb(Array.from({ length: rules }, (_, i) => ({ id: randomUUID(), n: i, rule: benchAlertRule(i, args['distinct-windows']!) })))})
        AS r(id text, n int, rule jsonb)`);
    await db.pool.query(sql.unsafe`VACUUM ANALYZE`);
    const reactor = alertEvaluationReactor({ store: createPostgresEventStore(db.pool), pool: db.pool, tickMs: 1000 });
    const times: number[] = [];
    const measuring: number[] = [];
    let transitions = 0;
    for (let i = 0; i < intervals + 1; i++) {
      // Each interval a minute after the last: every rule is due again.
      const now = new Date(start + i * 60_000);
      const t = performance.now();
      const commands = await reactor.schedule!.react({ db: db.pool, now });
      const measured = performance.now();
      for (const c of commands) await reactor.issue(c);
      const evaluated = commands.flatMap((c) => c.evaluations);
      // What the alerts read model does with the transitions (its state is the next verdict's "before").
      for (const c of evaluated)
        if (c.transition !== null)
          await db.pool.query(sql.unsafe`UPDATE alert_rules SET state = ${c.transition.to} WHERE alert_id = ${c.alertId}`);
      if (i > 0) {
        times.push(performance.now() - t);
        measuring.push(measured - t);
      }
      transitions += evaluated.filter((c) => c.transition !== null).length;
      if (evaluated.length !== rules) throw new Error(`${evaluated.length} of ${rules} rules evaluated`);
    }
    console.log(
      `== alert evaluation on ${db.kind}: ${rules.toLocaleString('en-US')} rules, ${spans.toLocaleString('en-US')} spans in ${traces.toLocaleString('en-US')} traces over ${args.hours} h${args['distinct-windows'] ? ', no two rules on one window' : ''}; ${intervals} intervals (after 1 warm-up), ${transitions} transitions in all`,
    );
    console.log(
      `  one interval (every rule measured, upserted): p50 ${(percentile(times, 50) / 1000).toFixed(2)} s  max ${(Math.max(...times) / 1000).toFixed(2)} s; of which measuring p50 ${(percentile(measuring, 50) / 1000).toFixed(2)} s`,
    );
    if (scratch !== null) console.log(`(${await postgresVersion(scratch.url)})`);
  } finally {
    await db.close();
    await scratch?.drop();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
};

await main();
process.exit(0);
