import pg from 'pg';
import { encodeExportRequest } from './otlpEncoder.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { sendBatches } from './senders.ts';
import { startServerProcess } from './serverProcess.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { machineBusySeconds as cpuSecondsByName, processCpuSeconds } from './cpuUsage.ts';
const n = Number(process.argv[2] ?? 20480);
const batches = [...spanBatches(createSpanGenerator(), n, 512)];
const bodies = batches.map((b) => encodeExportRequest(b, 'probe'));
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const server = await startServerProcess({ env: { SERVICE_WORKING_DIR: '/tmp', SERVICE_SQL_DATABASE_URL: scratch.url } });
const client = new pg.Client({ connectionString: scratch.url }); await client.connect();
try {
  const c0 = processCpuSeconds(server.pid), p0 = cpuSecondsByName();
  const t0 = performance.now();
  const stats = await sendBatches({ url: `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`, batches: bodies.length, body: (i) => bodies[i]!, concurrency: 4 });
  const ack = (performance.now() - t0) / 1000;
  console.log('acked', stats.acked.length, 'busy', stats.busy, [...stats.failures], 'ack s', ack.toFixed(1), 'spans/s', (n / ack).toFixed(0));
  for (;;) {
    const c = Number((await client.query('select count(*) n from spans')).rows[0].n);
    if (c >= n) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const vis = (performance.now() - t0) / 1000;
  console.log('visible s', vis.toFixed(1), 'spans/s', (n / vis).toFixed(0), 'server cpu', (processCpuSeconds(server.pid) - c0).toFixed(1), 'pg cpu', (cpuSecondsByName() - p0).toFixed(1));
} finally { await client.end(); await server.stop(); await scratch.drop(); }
process.exit(0);
