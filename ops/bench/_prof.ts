import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeExportRequest } from './otlpEncoder.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { sendBatches } from './senders.ts';
import { startServerProcess } from './serverProcess.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { waitUntilListed } from './restClient.ts';
const backend = process.argv[2] ?? 'postgres';
const n = Number(process.argv[3] ?? 20480);
const batches = [...spanBatches(createSpanGenerator(), n, 512)];
const bodies = batches.map((b) => encodeExportRequest(b, 'prof'));
const dir = await mkdtemp(join(tmpdir(), 'loupe-prof-'));
const scratch = backend === 'postgres' ? await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe') : null;
const env: Record<string, string> = { SERVICE_WORKING_DIR: dir };
if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
const server = await startServerProcess({ env, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}/prof`] });
try {
  const t0 = performance.now();
  await sendBatches({ url: `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`, batches: bodies.length, body: (i) => bodies[i]!, concurrency: 4 });
  await waitUntilListed(server.url, 'prof', batches.at(-1)!, 600_000);
  console.log('wall', ((performance.now() - t0) / 1000).toFixed(1));
} finally { console.log(await server.stop()); await scratch?.drop(); }
const files = await readdir(`${dir}/prof`);
const prof = JSON.parse(await readFile(`${dir}/prof/${files[0]}`, 'utf8'));
const byId = new Map(prof.nodes.map((nd: any) => [nd.id, nd]));
const self = new Map<number, number>();
const dt = prof.timeDeltas as number[];
prof.samples.forEach((id: number, i: number) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const agg = new Map<string, number>();
let total = 0;
for (const [id, us] of self) { const nd: any = byId.get(id); const cf = nd.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/main\//, '')}:${cf.lineNumber}`; agg.set(key, (agg.get(key) ?? 0) + us); total += us; }
console.log('total profiled s', (total / 1e6).toFixed(1));
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((v / 1e6).toFixed(2).padStart(7), (100 * v / total).toFixed(1).padStart(5) + '%', k);
process.exit(0);
