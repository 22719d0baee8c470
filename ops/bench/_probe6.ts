import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { copyChunks } from './copyBaseline.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
const n = 10240;
const spans = [...spanBatches(createSpanGenerator(), n, 512)].flat();
const chunks = copyChunks(spans, 512);
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const db = await openDatabase({ url: scratch.url });
const c = new pg.Client({ connectionString: scratch.url }); await c.connect();
const cols = 'id, span_id, trace_rowid, trace_id, project_id, parent_id, name, span_kind, otel_kind, status_code, status_message, start_time, end_time, attributes, events, llm_token_count_prompt, llm_token_count_completion';
const copy = () => new Promise<void>((res, rej) => { const s = c.query(copyFrom(`COPY x (${cols}) FROM STDIN`)); s.on('error', rej); s.on('finish', () => res()); for (const ch of chunks) s.write(ch); s.end(); });
try {
  await migrate(db.pool, allMigrations());
  const variants: [string, string][] = [
    ['LIKE spans INCLUDING ALL', ''],
    ['no GIN', 'DROP INDEX x_attributes_idx'],
    ['no GIN, lz4', 'DROP INDEX x_attributes_idx; ALTER TABLE x ALTER attributes SET COMPRESSION lz4'],
    ['lz4 with GIN', 'ALTER TABLE x ALTER attributes SET COMPRESSION lz4'],
    ['no indexes except pk', 'DROP INDEX x_attributes_idx; DROP INDEX x_project_id_id_idx; DROP INDEX x_trace_rowid_idx; DROP INDEX x_project_id_name_id_idx; DROP INDEX x_project_id_span_kind_id_idx; DROP INDEX x_project_id_start_time_idx; DROP INDEX x_trace_rowid_idx1'],
  ];
  for (const [label, alter] of variants) {
    await c.query('DROP TABLE IF EXISTS x; CREATE TABLE x (LIKE spans INCLUDING ALL)');
    if (label === 'LIKE spans INCLUDING ALL') console.log((await c.query(`select indexname from pg_indexes where tablename='x'`)).rows.map(r => r.indexname).join(' '));
    if (alter) await c.query(alter);
    await c.query('CHECKPOINT');
    const t0 = performance.now();
    await copy();
    console.log(label.padEnd(28), (n / ((performance.now() - t0) / 1000)).toFixed(0), 'rows/s');
  }
} finally { await c.end(); await db.close(); await scratch.drop(); }
process.exit(0);
