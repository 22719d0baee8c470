/**
 * `npm run bench:audit [-- --backend pglite|postgres] [--url URL] [--spans N] [--small N] [--verify-runs N]`: what the audit
 * chain costs. A fresh database gets N spans in SpansIngested events of 512 (≈ 2 KB of stored
 * JSON per span, as the ingest bench's spans are) and M small events (users, keys); then
 *  1. the sealer seals all of it (CPU of this process and of the Postgres backends, per span),
 *  2. `verifyChain` walks it (events/s, MB/s),
 *  3. `verifyChain` walks a log of small events only (events/s), N times (default 1): the first
 *     walk in a process includes V8's warm-up of the verify loop, the later ones show the rate a
 *     long log settles at.
 * Compare 1 with the ingest bench's CPU per span (BENCHMARKS.md §1).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'slonik';
import { z } from 'zod';
import { deriveAuditKey } from '../../domain/audit/auditKey.ts';
import { createPostgresSealInputs } from '../../domain/eventstore/postgresSealInputs.ts';
import { verifyChain } from '../../domain/audit/verifyChain.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { NewEvent } from '../../domain/eventstore/types.ts';
import { createSealer } from '../../projections/audit/createSealer.ts';
import { postgresChainReader } from '../../projections/audit/postgresChainReader.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openDatabase, type Database } from '../database/openDatabase.ts';
import { startBackendCpuSampler } from './cpuUsage.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'pglite' },
    spans: { type: 'string', default: '51200' },
    small: { type: 'string', default: '50000' },
    url: { type: 'string', default: DEFAULT_PG_URL },
    'verify-runs': { type: 'string', default: '1' },
  },
});
const spans = Number(values.spans);
const small = Number(values.small);
const key = deriveAuditKey('bench-audit-secret-0123456789abcdefghijkl');
const meta = { actor: 'bench', requestId: 'bench', time: new Date().toISOString(), causation: null };
const text = (bytes: number) => randomBytes(bytes / 2).toString('hex');

const spanEvent = (n: number): NewEvent => ({
  type: 'SpansIngested',
  metadata: meta,
  data: {
    projectName: 'bench',
    projectId: 'bench',
    resources: [{ 'service.name': { str: 'bench' } }],
    spans: Array.from({ length: n }, () => ({
      spanId: text(16),
      traceId: text(32),
      name: 'llm',
      attributes: { 'input.value': { str: text(800) }, 'output.value': { str: text(800) }, 'llm.model_name': { str: 'gpt-4o' } },
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000001000000000',
    })),
  },
});
const smallEvent = (i: number): NewEvent => ({ type: 'UserNoted', metadata: meta, data: { userId: `u-${i}`, note: text(64) } });

const open = async (): Promise<{ db: Database; cleanup: () => Promise<void> }> => {
  if (values.backend === 'postgres') {
    const scratch = await createScratchDatabase(values.url, 'loupe_bench_audit');
    const db = await openDatabase({ url: scratch.url });
    return { db, cleanup: async () => (await db.close(), await scratch.drop()) };
  }
  const dir = await mkdtemp(join(tmpdir(), 'loupe-bench-audit-'));
  const db = await openDatabase({ pgliteDataDir: dir });
  return { db, cleanup: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) };
};

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const measure = async (db: Database, work: () => Promise<void>) => {
  const backends =
    db.kind === 'postgres'
      ? startBackendCpuSampler(() =>
          db.pool
            .anyFirst(sql.type(z.object({ pid: z.number() }))`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
            .then((pids) => [...pids]),
        )
      : null;
  await backends?.ready;
  const started = performance.now();
  const cpu0 = cpu();
  await work();
  const wall = (performance.now() - started) / 1000;
  const node = cpu() - cpu0;
  const pg = backends ? await backends.stop() : 0;
  return { wall, node, pg };
};

const fill = async (db: Database, withSpans: boolean) => {
  const store = createPostgresEventStore(db.pool);
  if (withSpans)
    for (let done = 0; done < spans; done += 512)
      await store.appendToStream(`spans-${done}`, [spanEvent(Math.min(512, spans - done))], 'no_stream');
  for (let done = 0; done < small; done += 100) {
    await store.appendToStream(
      `user-${done}`,
      Array.from({ length: Math.min(100, small - done) }, (_, i) => smallEvent(done + i)),
      'any',
    );
  }
};

const run = async (withSpans: boolean, verifyRuns = 1) => {
  const { db, cleanup } = await open();
  try {
    await migrate(db.pool, allMigrations());
    await fill(db, withSpans);
    const events = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
    const bytes = await db.pool.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT coalesce(sum(data_bytes), 0)::float8 AS n FROM events`,
    );
    const sealer = createSealer({
      pool: db.pool,
      key,
      source: createPostgresSealInputs,
      maxBytes: db.kind === 'pglite' ? 4 * 1024 * 1024 : undefined,
    });
    const sealing = await measure(db, async () => void (await sealer.catchUp()));
    const walks = [];
    for (let i = 0; i < verifyRuns; i++) {
      let report: Awaited<ReturnType<typeof verifyChain>> | undefined;
      walks.push(await measure(db, async () => void (report = await verifyChain(postgresChainReader(db.pool), key))));
      if (report?.finding) throw new Error(`the bench log did not verify: ${report.finding.detail}`);
    }
    return { events, bytes, sealing, verifying: walks[0]!, walks };
  } finally {
    await cleanup();
  }
};

const f = (n: number, d = 1) => n.toFixed(d);
console.log(`backend ${values.backend}, ${spans} spans in events of 512, ${small} small events`);
const mixed = await run(true);
const perSpan = (s: number) => f(((s - 0) / spans) * 1e6, 1);
console.log(
  `mixed log: ${mixed.events} events, ${f(mixed.bytes / 1e6)} MB of data\n` +
    `  sealing: ${f(mixed.sealing.wall, 2)} s wall, CPU node ${f(mixed.sealing.node, 2)} s + postgres ${f(mixed.sealing.pg, 2)} s` +
    ` (the spans' share: ≈ ${perSpan(mixed.sealing.node + mixed.sealing.pg)} µs CPU per span, small events included)\n` +
    `  verify: ${f(mixed.verifying.wall, 2)} s, ${Math.round(mixed.events / mixed.verifying.wall)} events/s, ${f(mixed.bytes / 1e6 / mixed.verifying.wall)} MB/s` +
    ` (CPU node ${f(mixed.verifying.node, 2)} s + postgres ${f(mixed.verifying.pg, 2)} s)`,
);
const onlySmall = await run(false, Number(values['verify-runs']));
console.log(
  `small events only: ${onlySmall.events} events\n` +
    `  sealing: ${f(onlySmall.sealing.wall, 2)} s, ${Math.round(onlySmall.events / onlySmall.sealing.wall)} events/s\n` +
    onlySmall.walks
      .map(
        (w) =>
          `  verify: ${f(w.wall, 2)} s, ${Math.round(onlySmall.events / w.wall)} events/s (CPU node ${f(w.node, 2)} s + postgres ${f(w.pg, 2)} s)`,
      )
      .join('\n'),
);
