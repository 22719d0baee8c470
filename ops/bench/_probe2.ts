import { encodeExportRequest } from './otlpEncoder.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { decodeOtlpProtobuf } from '../../ingest/otlpProtobuf.ts';
import { routeSpans } from '../../ingest/routeSpans.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { ingestSpans } from '../../domain/tracing/ingestSpans.ts';
const n = 10240;
const batches = [...spanBatches(createSpanGenerator(), n, 512)];
const bodies = batches.map((b) => encodeExportRequest(b, 'probe'));
let t = performance.now();
const decoded = bodies.map((b) => decodeOtlpProtobuf(b));
console.log('decode ms/batch', ((performance.now() - t) / bodies.length).toFixed(1));
t = performance.now();
const routed = decoded.map((d) => routeSpans(d, { projectHeader: null, defaultProjectName: 'default' }));
console.log('route ms/batch', ((performance.now() - t) / bodies.length).toFixed(1));
t = performance.now();
const js = routed.map((r) => JSON.stringify(r.batches[0]));
console.log('stringify ms/batch', ((performance.now() - t) / bodies.length).toFixed(1), 'bytes', js[0]!.length);
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const db = await openDatabase({ url: scratch.url });
try {
  await migrate(db.pool, allMigrations());
  const store = createPostgresEventStore(db.pool);
  const ctx = { actor: 'system', requestId: null };
  await ingestSpans(store, routed[0]!.batches, ctx as any);
  for (const conc of [1, 4]) {
    t = performance.now();
    let next = 1;
    const times: number[] = [];
    await Promise.all(Array.from({ length: conc }, async () => { while (next < routed.length) { const i = next++; const t0 = performance.now(); await ingestSpans(store, routed[i]!.batches, ctx as any); times.push(performance.now() - t0); } }));
    const s = (performance.now() - t) / 1000;
    console.log(`append conc ${conc}: ${((routed.length - 1) * 512 / s).toFixed(0)} spans/s, per append ms`, times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!.toFixed(0));
  }
} finally { await db.close(); await scratch.drop(); }
process.exit(0);
