import { PGlite } from '@electric-sql/pglite';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKurrentEventStore } from '../../domain/eventstore/kurrentEventStore.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { type EventStore, type NewEvent, type Position, START } from '../../domain/eventstore/types.ts';
import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { TYPESCRIPT_NODE_FLAGS } from '../typescriptNodeFlags.ts';

/**
 * `npm run bench:esdb [-- --small 5000 --batches 200 --spans 512 --concurrency 8 --file]`: append
 * and catch-up rates of the EventStoreDB adapter against the STAND-IN (test/peers/eventStoreDb.ts,
 * run as its own process), beside the same work on embedded PGlite. The stand-in is a test peer
 * written in TypeScript, not EventStoreDB: these numbers say what the adapter and client cost and
 * that nothing in the path is quadratic, not how fast a KurrentDB node is.
 */
const { values } = parseArgs({
  options: {
    small: { type: 'string', default: '5000' },
    batches: { type: 'string', default: '200' },
    spans: { type: 'string', default: '512' },
    concurrency: { type: 'string', default: '8' },
    file: { type: 'boolean', default: false },
  },
});
const small = Number(values.small);
const batches = Number(values.batches);
const spansPerBatch = Number(values.spans);
const concurrency = Number(values.concurrency);

const meta = () => ({ actor: 'bench', requestId: randomUUID(), time: new Date().toISOString(), causation: null });
/** A command's event: a few hundred bytes. */
const smallEvent = (i: number): NewEvent => ({
  type: 'ProjectDescribed',
  data: { projectId: randomUUID(), description: `run ${i}` },
  metadata: meta(),
});
/** A span batch shaped like SpansIngested (~600 B of JSON per span). */
const spanBatch = (n: number): NewEvent => ({
  type: 'SpansIngested',
  data: {
    project: 'bench',
    resources: [{ attributes: { 'service.name': { str: 'bench' } } }],
    spans: Array.from({ length: n }, (_, i) => ({
      traceId: randomUUID().replaceAll('-', ''),
      spanId: randomUUID().replaceAll('-', '').slice(0, 16),
      parentId: null,
      name: `llm call ${i}`,
      kind: 'SPAN_KIND_INTERNAL',
      spanKind: 'LLM',
      status: { code: 'OK', message: '' },
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000500000000',
      events: [],
      resource: 0,
      sessionId: null,
      attributes: {
        'llm.model_name': { str: 'gpt-4o' },
        'input.value': { str: 'What is the capital of France? Answer in one word, please.'.repeat(3) },
        'output.value': { str: 'Paris.' },
        'llm.token_count.prompt': { int: '42' },
        'llm.token_count.completion': { int: '3' },
      },
    })),
  },
  metadata: meta(),
});

type Rates = {
  appendsPerSecond: number;
  concurrentAppendsPerSecond: number;
  batchSpansPerSecond: number;
  batchMbPerSecond: number;
  catchUpEventsPerSecond: number;
  catchUpMbPerSecond: number;
  events: number;
};

const measure = async (store: EventStore): Promise<Rates> => {
  let started = performance.now();
  for (let i = 0; i < small; i++) await store.appendToStream(`bench-${randomUUID()}`, [smallEvent(i)], 'no_stream');
  const appendsPerSecond = small / ((performance.now() - started) / 1000);

  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < small) await store.appendToStream(`bench-${randomUUID()}`, [smallEvent(next++)], 'no_stream');
    }),
  );
  const concurrentAppendsPerSecond = small / ((performance.now() - started) / 1000);

  const batch = spanBatch(spansPerBatch);
  const batchBytes = Buffer.byteLength(JSON.stringify(batch.data));
  started = performance.now();
  for (let i = 0; i < batches; i++)
    await store.appendToStream(`bench-spans-${randomUUID()}`, [{ ...batch, metadata: meta() }], 'no_stream');
  const batchSeconds = (performance.now() - started) / 1000;

  // Catch-up: the whole log from the start, as a read model rebuilds (500 events, 8 MB per page).
  started = performance.now();
  let events = 0;
  for (let after: Position = START; ; ) {
    const page = await store.readAll(after, 500, { maxBytes: 8 * 1024 * 1024 });
    if (page.length === 0) break;
    events += page.length;
    after = page.at(-1)!.position;
  }
  const catchUpSeconds = (performance.now() - started) / 1000;
  const totalBytes = batches * batchBytes + 2 * small * Buffer.byteLength(JSON.stringify(smallEvent(0).data));
  return {
    appendsPerSecond,
    concurrentAppendsPerSecond,
    batchSpansPerSecond: (batches * spansPerBatch) / batchSeconds,
    batchMbPerSecond: (batches * batchBytes) / 1e6 / batchSeconds,
    catchUpEventsPerSecond: events / catchUpSeconds,
    catchUpMbPerSecond: totalBytes / 1e6 / catchUpSeconds,
    events,
  };
};

const startStandIn = async (file: string | null) => {
  const cli = new URL('../../test/peers/eventStoreDbCli.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [...TYPESCRIPT_NODE_FLAGS, cli, '--port', '0', ...(file ? ['--file', file] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /SERVICE_EVENTSTORE_URL=(\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
};

const show = (label: string, r: Rates) =>
  console.log(
    `${label}: ${Math.round(r.appendsPerSecond)} appends/s one at a time, ${Math.round(r.concurrentAppendsPerSecond)} appends/s with ${concurrency} appenders (1 small event each); ` +
      `${batches} span batches of ${spansPerBatch}: ${Math.round(r.batchSpansPerSecond)} spans/s (${r.batchMbPerSecond.toFixed(1)} MB/s); ` +
      `catch-up of ${r.events} events: ${Math.round(r.catchUpEventsPerSecond)} events/s (${r.catchUpMbPerSecond.toFixed(1)} MB/s)`,
  );

const dir = await mkdtemp(join(tmpdir(), 'loupe-bench-esdb-'));
try {
  const standIn = await startStandIn(values.file ? join(dir, 'log.jsonl') : null);
  const kurrent = createKurrentEventStore(standIn.url);
  try {
    show(
      `EventStoreDB STAND-IN (${values.file ? 'log file, fdatasync per append' : 'memory'}), through @kurrent/kurrentdb-client`,
      await measure(kurrent.store),
    );
  } finally {
    await kurrent.close();
    standIn.stop();
  }
  const database = await openDatabase({ pglite: await PGlite.create(), description: 'bench PGlite (memory)' });
  try {
    await migrate(database.pool, allMigrations());
    show('embedded PGlite (memory), events table', await measure(createPostgresEventStore(database.pool)));
  } finally {
    await database.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
