import pg from 'pg';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { createSpanGenerator, spanBatches } from './spanGenerator.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { decodeOtlpProtobuf } from '../../ingest/otlpProtobuf.ts';
import { routeSpans } from '../../ingest/routeSpans.ts';
const batches = [...spanBatches(createSpanGenerator(), 512 * 10, 512)];
const docs = batches.map((b) => JSON.stringify(routeSpans(decodeOtlpProtobuf(encodeExportRequest(b, 'p')), { projectHeader: null, defaultProjectName: 'd' }).batches[0]));
const scratch = await createScratchDatabase(DEFAULT_PG_URL, 'loupe_bench_probe');
const c = new pg.Client({ connectionString: scratch.url }); await c.connect();
try {
  const variants: [string, string, string][] = [
    ['jsonb pglz', 'jsonb', 'pglz'], ['jsonb lz4', 'jsonb', 'lz4'], ['json pglz', 'json', 'pglz'], ['json lz4', 'json', 'lz4'], ['text lz4', 'text', 'lz4'], ['bytea external (no compression)', 'text', 'none'],
  ];
  for (const [label, type, comp] of variants) {
    await c.query(`drop table if exists t; create table t (id serial, d ${type})`);
    if (comp === 'none') await c.query(`alter table t alter column d set storage external`);
    else await c.query(`alter table t alter column d set compression ${comp}`);
    const t0 = performance.now();
    for (const d of docs) await c.query(`insert into t (d) values ($1::${type})`, [d]);
    const ms = (performance.now() - t0) / docs.length;
    const size = (await c.query(`select pg_total_relation_size('t') s`)).rows[0].s;
    console.log(label.padEnd(34), ms.toFixed(0), 'ms/insert', (Number(size) / docs.length / 1e6).toFixed(2), 'MB/row stored');
  }
  const t0 = performance.now();
  for (const d of docs) await c.query(`select $1::jsonb is not null`, [d]);
  console.log('jsonb parse only', ((performance.now() - t0) / docs.length).toFixed(0), 'ms');
  const t1 = performance.now();
  for (const d of docs) await c.query(`select length($1::text)`, [d]);
  console.log('send text only', ((performance.now() - t1) / docs.length).toFixed(0), 'ms');
} finally { await c.end(); await scratch.drop(); }
process.exit(0);
