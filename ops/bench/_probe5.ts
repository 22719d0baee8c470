import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { copyChunks, copyIntoPostgres } from './copyBaseline.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { cpuSecondsByName } from './cpuUsage.ts';
const n = Number(process.argv[2] ?? 20480);
const spans = [...spanBatches(createSpanGenerator(), n, 512)].flat();
let t = performance.now();
const chunks = copyChunks(spans, 512);
console.log('build copy text', (performance.now() - t).toFixed(0), 'ms', (chunks.reduce((a, c) => a + c.length, 0) / n).toFixed(0), 'B/row');
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const db = await openDatabase({ url: scratch.url });
try {
  await migrate(db.pool, allMigrations());
  for (const v of [{ streams: 1, perChunk: false }, { streams: 4, perChunk: true }, { streams: 1, perChunk: false }]) {
    const p0 = cpuSecondsByName('postgres');
    const r = await copyIntoPostgres(scratch.url, chunks, n, v);
    console.log(JSON.stringify(v), r.rowsPerSecond.toFixed(0), 'rows/s', r.seconds.toFixed(1), 's', 'pg cpu', (cpuSecondsByName('postgres') - p0).toFixed(1));
  }
} finally { await db.close(); await scratch.drop(); }
process.exit(0);
