import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { decodeOtlpProtobuf } from '../../ingest/otlpProtobuf.ts';
import { routeSpans } from '../../ingest/routeSpans.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { ingestSpans } from '../../domain/tracing/ingestSpans.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { applyBatch, ensureCheckpoints } from '../../projections/projectionRunner.ts';
import { START } from '../../domain/eventstore/types.ts';
import { machineBusySeconds } from './cpuUsage.ts';
const stmt = new Map<string, number>();
const timed = (tx: any) => new Proxy(tx, { get(target, prop) {
  const v = target[prop];
  if (typeof v !== 'function' || !['query', 'any', 'anyFirst', 'one', 'maybeOne', 'oneFirst'].includes(String(prop))) return typeof v === 'function' ? v.bind(target) : v;
  return async (q: any, ...rest: any[]) => { const t = performance.now(); try { return await v.call(target, q, ...rest); } finally { const key = String(q.sql).replace(/\s+/g, ' ').trim().slice(0, 90); stmt.set(key, (stmt.get(key) ?? 0) + performance.now() - t); } };
} });
const n = Number(process.argv[2] ?? 20480);
const batchSize = Number(process.argv[3] ?? 100);
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const db = await openDatabase({ url: scratch.url });
try {
  await migrate(db.pool, allMigrations());
  const store = createPostgresEventStore(db.pool);
  for (const b of spanBatches(createSpanGenerator(), n, 512)) {
    await ingestSpans(store, routeSpans(decodeOtlpProtobuf(encodeExportRequest(b, 'p')), { projectHeader: null, defaultProjectName: 'd' }).batches, { actor: 'system', requestId: null });
  }
  console.log('appended');
  const projections = allProjections();
  await ensureCheckpoints(db.pool, projections.map((p) => p.name));
  let pos = START; let read = 0, apply = 0;
  const c0 = machineBusySeconds(); const me0 = process.cpuUsage(); const t0 = performance.now();
  for (;;) {
    let t = performance.now();
    const events = await store.readAll(pos, batchSize);
    read += performance.now() - t;
    if (events.length === 0) break;
    t = performance.now();
    await db.pool.transaction((tx) => applyBatch(timed(tx), projections, events));
    apply += performance.now() - t;
    pos = events.at(-1)!.position;
  }
  const s = (performance.now() - t0) / 1000;
  for (const [k, v] of [...stmt].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(v.toFixed(0).padStart(6), 'ms', k);
const me = process.cpuUsage(me0); console.log('node cpu s', ((me.user + me.system) / 1e6).toFixed(1)); console.log(`projection alone: ${(n / s).toFixed(0)} spans/s; readAll ${(read / 1000).toFixed(1)} s, apply ${(apply / 1000).toFixed(1)} s; machine cpu ${(machineBusySeconds() - c0).toFixed(1)} of ${(2 * s).toFixed(1)}`);
} finally { await db.close(); await scratch.drop(); }
process.exit(0);
