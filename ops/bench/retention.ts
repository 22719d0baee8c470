/**
 * Retention under steady ingest: `npm run bench:retention [-- options]`.
 *
 * For each backend, starts `loupe serve` on a fresh database, creates a trace retention policy
 * much shorter than the run (default: 1 minute), assigns it to the bench project, and exports
 * realistic traces (ops/bench/spanGenerator.ts, start times = now) at a steady rate for the whole
 * run. The schedule is set to its shortest (SERVICE_RETENTION_SCHEDULE_MINUTES=1). Every
 * `--sample` seconds it records the database's bytes: on PostgreSQL pg_database_size and the
 * split below (read over a connection of its own); on PGlite the data directory's bytes on disk
 * (the server holds the directory, so the split is read once the server has stopped). At the end
 * it prints bytes over time and, per live span, what the log, the read models' rows and their
 * indexes hold, and what stays in the log for each removed span (stubs, removal records).
 *
 *   --backend pglite|postgres|both   (default both)
 *   --minutes N                      per backend (default 4)
 *   --rate N                         spans per second (default 50)
 *   --policy-minutes N               the policy's max age (default 1)
 *   --sample N                       seconds between samples (default 10)
 *   --pg-url URL                     server for the scratch database
 *   --json FILE                      also write every sample and the splits as JSON
 */
import { readdir, stat } from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { openDatabase, pgliteDataDir } from '../database/openDatabase.ts';
import { encodeExportRequest } from './otlpEncoder.ts';
import { percentile } from './percentile.ts';
import { createScratchDatabase, DEFAULT_PG_URL } from './scratchDatabase.ts';
import { postExport } from './senders.ts';
import { passedOnEnvironment, startServerProcess } from './serverProcess.ts';
import { createSpanGenerator, type GeneratedSpan } from './spanGenerator.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'both' },
    minutes: { type: 'string', default: '4' },
    rate: { type: 'string', default: '50' },
    'policy-minutes': { type: 'string', default: '1' },
    sample: { type: 'string', default: '10' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
    json: { type: 'string' },
  },
});

const PROJECT = 'bench-retention';
const log = (msg: string) => process.stderr.write(`[bench:retention] ${msg}\n`);
const MB = 1024 * 1024;

/** `bytes`: the database (PostgreSQL) or the data directory (PGlite); on PGlite `wal` is the part in pg_wal (recycled at checkpoints). */
type Sample = {
  readonly t: number;
  readonly bytes: number;
  readonly wal: number | null;
  readonly sent: number;
  readonly liveSpans: number | null;
  /** PostgreSQL: where the bytes are at this moment. */
  readonly split: Split | null;
};

/** Where the bytes are: the log (the events table with its TOAST and indexes) against the read models' rows and indexes. */
type Split = {
  readonly database: number;
  readonly logHeap: number;
  readonly logIndexes: number;
  readonly readModelRows: number;
  readonly readModelIndexes: number;
  readonly liveSpans: number;
  readonly events: number;
  readonly contentRemoved: number;
  readonly erasedSpans: number;
  /** The log's event data by type (pg_column_size: as stored, compressed), and what the events emptied by removal still hold. */
  readonly dataBytesByType: Record<string, number>;
  readonly emptied: { readonly events: number; readonly stubs: number; readonly bytes: number };
  /** Each table's bytes with its TOAST and indexes, and its dead rows: which table grows once removals run. */
  readonly tables: Record<string, { readonly bytes: number; readonly dead: number }>;
};

const count = z.object({ n: z.number() });
const splitOf = async (db: CommonQueryMethods): Promise<Split> => {
  const sizes = await db.one(sql.type(
    z.object({ database: z.number(), log_heap: z.number(), log_indexes: z.number(), rows: z.number(), indexes: z.number() }),
  )`
    SELECT pg_database_size(current_database())::float8 AS database,
      pg_table_size('events')::float8 AS log_heap, pg_indexes_size('events')::float8 AS log_indexes,
      coalesce(sum(pg_table_size(c.oid)) FILTER (WHERE c.relname <> 'events'), 0)::float8 AS rows,
      coalesce(sum(pg_indexes_size(c.oid)) FILTER (WHERE c.relname <> 'events'), 0)::float8 AS indexes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'`);
  const liveSpans = await db.oneFirst(sql.type(count)`SELECT count(*)::float8 AS n FROM spans`);
  const events = await db.oneFirst(sql.type(count)`SELECT count(*)::float8 AS n FROM events`);
  const contentRemoved = await db.oneFirst(sql.type(count)`SELECT count(*)::float8 AS n FROM events WHERE type = 'ContentRemoved'`);
  const erasedSpans = await db.oneFirst(sql.type(count)`
    SELECT coalesce(sum(json_array_length(data->'erased')), 0)::float8 AS n FROM events
    WHERE type = 'SpansIngested' AND json_typeof(data->'erased') = 'array'`);
  const byType = await db.any(sql.type(z.object({ type: z.string(), bytes: z.number() }))`
    SELECT type, sum(pg_column_size(data))::float8 AS bytes FROM events GROUP BY type`);
  // SpansIngested events whose every span was removed: only the stubs (and the batch's resource) are left.
  const emptied = await db.one(sql.type(z.object({ events: z.number(), stubs: z.number(), bytes: z.number() }))`
    SELECT count(*)::float8 AS events, coalesce(sum(json_array_length(data->'erased')), 0)::float8 AS stubs,
      coalesce(sum(pg_column_size(data)), 0)::float8 AS bytes
    FROM events WHERE type = 'SpansIngested' AND json_typeof(data->'erased') = 'array' AND json_array_length(data->'spans') = 0`);
  const tables = await db.any(sql.type(z.object({ name: z.string(), bytes: z.number(), dead: z.number() }))`
    SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS bytes, coalesce(s.n_dead_tup, 0)::float8 AS dead
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
    WHERE n.nspname = current_schema() AND c.relkind = 'r'`);
  return {
    tables: Object.fromEntries(tables.map((t) => [t.name, { bytes: t.bytes, dead: t.dead }])),
    dataBytesByType: Object.fromEntries(byType.map((r) => [r.type, r.bytes])),
    emptied,
    database: sizes.database,
    logHeap: sizes.log_heap,
    logIndexes: sizes.log_indexes,
    readModelRows: sizes.rows,
    readModelIndexes: sizes.indexes,
    liveSpans,
    events,
    contentRemoved,
    erasedSpans,
  };
};

const directoryBytes = async (dir: string): Promise<number> => {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
};

/** The generator's start times are fixed when it is made; each trace is moved to now (a steady stream of fresh traces). */
const freshTrace = (generator: ReturnType<typeof createSpanGenerator>, made: bigint): GeneratedSpan[] => {
  const shift = BigInt(Date.now()) * 1_000_000n - made;
  return generator.nextTrace().map((s) => ({ ...s, startNs: s.startNs + shift, endNs: s.endNs + shift }));
};

const runBackend = async (backend: 'pglite' | 'postgres') => {
  const minutes = Number(args.minutes);
  const rate = Number(args.rate);
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-bench-retention-'));
  const scratch = backend === 'postgres' ? await createScratchDatabase(args['pg-url']!, 'loupe_bench_retention') : null;
  const env: Record<string, string> = {
    ...passedOnEnvironment(),
    SERVICE_WORKING_DIR: workingDir,
    SERVICE_RETENTION_SCHEDULE_MINUTES: '1',
  };
  if (scratch) env.SERVICE_SQL_DATABASE_URL = scratch.url;
  const server = await startServerProcess({ env });
  const watcher = scratch ? await openDatabase({ url: scratch.url }) : null;
  const samples: Sample[] = [];
  try {
    const api = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ data: { id: string } }>;
    };
    // A fresh server's read models may still be starting: a write would be stored but answered 503.
    while ((await fetch(`${server.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 500));
    await api('POST', '/v1/projects', { name: PROJECT });
    const policy = await api('POST', '/v1/trace_retention_policies', { name: 'bench', max_days: Number(args['policy-minutes']) / 1440 });
    await api('PUT', `/v1/projects/${PROJECT}/trace_retention_policy`, { policy_id: policy.data.id });

    const generator = createSpanGenerator({ spreadMs: 1000, textBytes: 2048 });
    const made = BigInt(Date.now()) * 1_000_000n;
    const otlp = `http://127.0.0.1:${server.otlpHttpPort}/v1/traces`;
    const started = performance.now();
    const end = started + minutes * 60_000;
    let sent = 0;
    let failed = 0;
    // How long each export took to be acknowledged: removals, vacuums and (PGlite) checkpoints share the database with ingest.
    const answeredMs: number[] = [];
    const sampleEvery = Number(args.sample) * 1000;
    let nextSample = started;
    // Once a second, the spans due by now (whole traces): a steady rate, not as fast as possible.
    for (let tick = 0; performance.now() < end; tick++) {
      const due = Math.floor(((tick + 1) * rate) / 1) - sent;
      const spans: GeneratedSpan[] = [];
      while (spans.length < due) spans.push(...freshTrace(generator, made));
      const body = encodeExportRequest(spans, PROJECT);
      const posted = performance.now();
      const result = await postExport(otlp, body);
      answeredMs.push(performance.now() - posted);
      if (result.kind === 'ok') sent += spans.length;
      else failed++;
      if (performance.now() >= nextSample) {
        const split = watcher ? await splitOf(watcher.pool) : null;
        const bytes = split ? split.database : await directoryBytes(pgliteDataDir(workingDir));
        const wal = split ? null : await directoryBytes(join(pgliteDataDir(workingDir), 'pg_wal'));
        const liveSpans = split ? split.liveSpans : null;
        const t = (performance.now() - started) / 1000;
        samples.push({ t, bytes, wal, sent, liveSpans, split });
        const walText = wal === null ? '' : ` (WAL ${(wal / MB).toFixed(1)} MB)`;
        log(
          `${backend} t=${t.toFixed(0)}s sent=${sent} ${liveSpans === null ? '' : `live=${liveSpans} `}bytes=${(bytes / MB).toFixed(1)} MB${walText}`,
        );
        nextSample += sampleEvery;
      }
      const wait = started + (tick + 1) * 1000 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    if (failed > 0) log(`${backend}: ${failed} exports failed`);
    let split: Split;
    if (watcher) split = await splitOf(watcher.pool);
    else {
      await server.stop();
      const db = await openDatabase({ pgliteDataDir: pgliteDataDir(workingDir) });
      try {
        split = await splitOf(db.pool);
      } finally {
        await db.close();
      }
      samples.push({
        t: (performance.now() - started) / 1000,
        bytes: await directoryBytes(pgliteDataDir(workingDir)),
        wal: await directoryBytes(join(pgliteDataDir(workingDir), 'pg_wal')),
        sent,
        liveSpans: split.liveSpans,
        split,
      });
    }
    return { backend, sent, samples, split, answeredMs };
  } finally {
    await watcher?.close();
    await server.stop();
    await scratch?.drop();
    await rm(workingDir, { recursive: true, force: true });
  }
};

const report = (r: Awaited<ReturnType<typeof runBackend>>) => {
  const s = r.split;
  const per = (bytes: number) => (s.liveSpans > 0 ? `${Math.round(bytes / s.liveSpans)} B` : 'n/a');
  const removed = r.sent - s.liveSpans;
  console.log(`\n## ${r.backend}: ${r.sent} spans sent at ${args.rate}/s for ${args.minutes} min, policy ${args['policy-minutes']} min`);
  console.log('t (s)   sent     live    MB  (WAL MB)');
  for (const x of r.samples) {
    const wal = x.wal === null ? '' : `  (${(x.wal / MB).toFixed(1)})`;
    console.log(
      `${x.t.toFixed(0).padStart(5)} ${String(x.sent).padStart(7)} ${String(x.liveSpans ?? '-').padStart(8)} ${(x.bytes / MB).toFixed(1).padStart(7)}${wal}`,
    );
  }
  console.log(
    `export acknowledged in p50 ${percentile(r.answeredMs, 50).toFixed(0)} ms, p99 ${percentile(r.answeredMs, 99).toFixed(0)} ms, max ${Math.max(...r.answeredMs).toFixed(0)} ms (${r.answeredMs.length} exports)`,
  );
  console.log(
    `at the end: ${s.liveSpans} live spans, ${removed} removed; ${s.events} events (${s.contentRemoved} ContentRemoved), ${s.erasedSpans} erased-span stubs`,
  );
  console.log(
    `database ${(s.database / MB).toFixed(1)} MB: log ${(s.logHeap / MB).toFixed(1)} MB + its indexes ${(s.logIndexes / MB).toFixed(1)} MB, read-model rows ${(s.readModelRows / MB).toFixed(1)} MB + indexes ${(s.readModelIndexes / MB).toFixed(1)} MB`,
  );
  console.log(
    `log data by type (KB): ${Object.entries(s.dataBytesByType)
      .map(([type, bytes]) => `${type} ${(bytes / 1024).toFixed(0)}`)
      .join(', ')}`,
  );
  if (s.emptied.stubs > 0)
    console.log(
      `${s.emptied.events} SpansIngested events emptied by removal hold ${s.emptied.stubs} stubs in ${(s.emptied.bytes / 1024).toFixed(0)} KB: ${Math.round(s.emptied.bytes / s.emptied.stubs)} B per removed span`,
    );
  // Which tables grew over the run's second half, when removals keep pace with ingest.
  // (PGlite's split is read once, after the run: no growth to show there.)
  const half = r.samples.find((x) => x.split !== null && x.t >= r.samples.at(-1)!.t / 2)?.split;
  if (half && half !== s) {
    const rows = Object.entries(s.tables)
      .map(([name, t]) => ({ name, ...t, grew: t.bytes - (half.tables[name]?.bytes ?? 0) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 14);
    console.log('table (with TOAST and indexes): MB at the end, growth over the second half, dead rows');
    for (const t of rows)
      console.log(
        `  ${t.name.padEnd(32)} ${(t.bytes / MB).toFixed(1).padStart(6)} ${(t.grew / MB >= 0 ? '+' : '') + (t.grew / MB).toFixed(1)} ${t.dead}`,
      );
  }
  console.log(
    `per live span: log ${per(s.logHeap)}, log indexes ${per(s.logIndexes)}, rows ${per(s.readModelRows)}, indexes ${per(s.readModelIndexes)}`,
  );
};

const backends = args.backend === 'both' ? (['pglite', 'postgres'] as const) : [args.backend as 'pglite' | 'postgres'];
const results = [];
for (const backend of backends) {
  log(`${backend}: ${args.minutes} min at ${args.rate} spans/s, policy ${args['policy-minutes']} min`);
  results.push(await runBackend(backend));
}
for (const r of results) report(r);
if (args.json) await writeFile(args.json, JSON.stringify(results, null, 2));
