/**
 * What each index on `spans` costs a span row (issue 33, BENCHMARKS.md §22), measured on a database
 * that already holds spans (a `bench:ingest --keep` one): the first `--rows` of them are inserted
 * (`INSERT … SELECT`) into a scratch copy of the table with more and more of the indexes, then the
 * full-text search words of the same spans into a scratch copy of `span_search`, as the indexer
 * writes them. Each variant three times; the median time and the database's CPU per row.
 *
 *   npm run ts -- ops/bench/spanRowCost.ts --database loupe_bench_…   (PostgreSQL)
 *   npm run ts -- ops/bench/spanRowCost.ts --pglite DIR/pgdata        (PGlite; CPU = this process)
 *   --rows N   (default 20000)   --pg-url URL   (server of --database)
 */
import { PGlite } from '@electric-sql/pglite';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { processCpuSeconds } from './cpuUsage.ts';
import { DEFAULT_PG_URL } from './scratchDatabase.ts';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string' },
    pglite: { type: 'string' },
    rows: { type: 'string', default: '20000' },
    'pg-url': { type: 'string', default: DEFAULT_PG_URL },
  },
});
const rows = Number(args.rows);

const BTREES = [
  'CREATE UNIQUE INDEX ON probe (id)',
  'CREATE UNIQUE INDEX ON probe (span_id)',
  'CREATE INDEX ON probe (project_id, id)',
  'CREATE INDEX ON probe (trace_rowid)',
  'CREATE INDEX ON probe (project_id, name, id)',
  'CREATE INDEX ON probe (project_id, span_kind, id)',
  'CREATE INDEX ON probe (project_id, start_time)',
  'CREATE INDEX ON probe (trace_rowid) WHERE parent_id IS NULL',
  'CREATE INDEX ON probe (llm_model_name, start_time) WHERE llm_model_name IS NOT NULL',
  "CREATE INDEX ON probe (project_id, start_time) INCLUDE (llm_model_name) WHERE span_kind = 'LLM' AND cost_total IS NULL",
];
const ATTRIBUTE_GIN = 'CREATE INDEX ON probe USING gin (attribute_index jsonb_path_ops)';
/** The index every span insert paid for before issue 33 (migration tracing/0003). */
const TEXT_GIN = `CREATE INDEX ON probe USING gin ((to_tsvector('simple'::regconfig,
  left(name, 1000) || ' ' || left(coalesce(attributes ->> 'input.value', ''), 100000) || ' ' ||
  left(coalesce(attributes ->> 'output.value', ''), 100000))))`;
const WORDS = `to_tsvector('simple'::regconfig,
  left(s.name, 1000) || ' ' || left(coalesce(s.attributes ->> 'input.value', ''), 100000) || ' ' ||
  left(coalesce(s.attributes ->> 'output.value', ''), 100000))`;

type Variant = { readonly name: string; readonly setup: readonly string[]; readonly insert: string };
const spansInto = `INSERT INTO probe SELECT * FROM spans ORDER BY id LIMIT ${rows}`;
const variants: Variant[] = [
  { name: 'spans row, no index', setup: [], insert: spansInto },
  { name: '+ the B-trees (primary key, unique span id, 8 more)', setup: BTREES, insert: spansInto },
  { name: '+ attribute_index GIN (as after this change)', setup: [...BTREES, ATTRIBUTE_GIN], insert: spansInto },
  { name: '+ the old spans_text_search GIN (as before this change)', setup: [...BTREES, ATTRIBUTE_GIN, TEXT_GIN], insert: spansInto },
  {
    name: 'span_search: the words alone (to_tsvector, no index)',
    setup: [],
    insert: `INSERT INTO probe_words SELECT s.id, ${WORDS} FROM spans s ORDER BY s.id LIMIT ${rows}`,
  },
  {
    name: 'span_search: the words + primary key + GIN (the indexer)',
    setup: ['CREATE UNIQUE INDEX ON probe_words (span_rowid)', 'CREATE INDEX ON probe_words USING gin (words)'],
    insert: `INSERT INTO probe_words SELECT s.id, ${WORDS} FROM spans s ORDER BY s.id LIMIT ${rows}`,
  },
];

type Db = { exec(sql: string): Promise<void>; cpuSeconds(): Promise<number>; close(): Promise<void> };

const openDb = async (): Promise<Db> => {
  if (args.pglite) {
    const db = await PGlite.create(args.pglite);
    return {
      exec: async (sql) => {
        await db.exec(sql);
      },
      cpuSeconds: async () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
      },
      close: () => db.close(),
    };
  }
  if (!args.database) throw new Error('--database NAME or --pglite DIR');
  const url = new URL(args['pg-url']!);
  url.pathname = `/${args.database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    cpuSeconds: async () => processCpuSeconds(pid),
    close: () => client.end(),
  };
};

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const main = async () => {
  const db = await openDb();
  try {
    console.log(`== ${rows} span rows of ${args.database ?? args.pglite}, each variant 3 times (median)`);
    for (const v of variants) {
      const times: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < 3; i++) {
        await db.exec('DROP TABLE IF EXISTS probe; DROP TABLE IF EXISTS probe_words');
        await db.exec(
          'CREATE TABLE probe (LIKE spans INCLUDING DEFAULTS); CREATE TABLE probe_words (span_rowid bigint NOT NULL, words tsvector NOT NULL)',
        );
        for (const statement of v.setup) await db.exec(statement);
        const cpu = await db.cpuSeconds();
        const started = performance.now();
        await db.exec(v.insert);
        times.push((performance.now() - started) / 1000);
        cpus.push((await db.cpuSeconds()) - cpu);
      }
      console.log(
        `  ${v.name.padEnd(58)} ${median(times).toFixed(2).padStart(6)} s  ${((median(times) / rows) * 1e6).toFixed(0).padStart(5)} µs/row wall  ${((median(cpus) / rows) * 1e6).toFixed(0).padStart(5)} µs/row CPU`,
      );
    }
    await db.exec('DROP TABLE IF EXISTS probe; DROP TABLE IF EXISTS probe_words');
  } finally {
    await db.close();
  }
};

await main();
