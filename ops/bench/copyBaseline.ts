import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Attributes } from '../../domain/tracing/attributes.ts';
import { copyField } from '../../projections/copyFromStdin.ts';
import { ATTRIBUTE_INDEX_MAX_VALUE_BYTES } from '../../projections/tracing/attributeFilter.ts';
import { SPAN_COLUMNS } from '../../projections/tracing/renderSpan.ts';
import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { renderAttributes } from '../../domain/tracing/renderAttributes.ts';
import { builtInPrices } from '../../domain/prices/builtInPrices.ts';
import { priceBook } from '../../domain/prices/priceBook.ts';
import { llmSpanCost } from '../../projections/tracing/llmSpanCost.ts';
import { machineBusySeconds } from './cpuUsage.ts';
import type { GeneratedSpan } from './spanGenerator.ts';

/**
 * The raw-COPY baseline: the same span rows Loupe's read model holds (same columns, same JSON
 * attributes as the projector renders them), COPYed into a scratch table created `LIKE spans
 * INCLUDING ALL` (same indexes, GIN on attribute_index included) on the same database. The COPY text
 * is built before the clock starts, as the OTLP bodies are.
 */

export const SCRATCH_TABLE = 'bench_copy_spans';
const OTEL_KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT'];
const STATUS = ['UNSET', 'OK', 'ERROR'];

const domainAttributes = (span: GeneratedSpan): Attributes => {
  const out: Record<string, Attributes[string]> = {};
  for (const [key, v] of span.attributes) out[key] = 'int' in v ? { int: String(v.int) } : v;
  return out;
};

/** attributes, and attribute_index as the projector's SQL derives it (the values of at most 256 bytes of JSON). */
const attributeColumns = (attributes: Record<string, unknown>): [string, string] => [
  JSON.stringify(attributes),
  JSON.stringify(
    Object.fromEntries(
      Object.entries(attributes).filter(([, v]) => Buffer.byteLength(JSON.stringify(v)) <= ATTRIBUTE_INDEX_MAX_VALUE_BYTES),
    ),
  ),
];

/** The id the rows name as their SpansIngested event (the projector writes the event's; any uuid is as wide). */
const SOURCE_EVENT = '00000000-0000-4000-8000-000000000000';

/**
 * Builds COPY text chunks of `chunkRows` rows each, ids counted from 1: every column of
 * SPAN_COLUMNS, LLM spans priced with the built-in prices as the projector prices them.
 */
export const copyChunks = (spans: readonly GeneratedSpan[], chunkRows: number): string[] => {
  const prices = priceBook(builtInPrices(), []);
  const traceRowids = new Map<string, number>();
  const chunks: string[] = [];
  let lines: string[] = [];
  spans.forEach((span, i) => {
    let traceRowid = traceRowids.get(span.traceId);
    if (traceRowid === undefined) traceRowids.set(span.traceId, (traceRowid = traceRowids.size + 1));
    const llm = span.spanKind === 'LLM';
    const count = (key: string) => {
      const v = span.attributes.find(([k]) => k === key)?.[1];
      return v && 'int' in v ? v.int : 0;
    };
    const attributes = domainAttributes(span);
    const start = nanosToIsoMicros(span.startNs.toString());
    const { modelName, provider, cost } = llmSpanCost(prices, span.spanKind, attributes, start);
    // In SPAN_COLUMNS' order, the read model's own.
    const row = [
      i + 1,
      traceRowid,
      1,
      span.spanId,
      span.traceId,
      span.parentId,
      span.name,
      span.spanKind,
      OTEL_KINDS[span.kind] ?? 'SPAN_KIND_UNSPECIFIED',
      STATUS[span.status.code]!,
      span.status.message,
      start,
      nanosToIsoMicros(span.endNs.toString()),
      ...attributeColumns(renderAttributes(attributes)),
      '[]',
      llm ? count('llm.token_count.prompt') : null,
      llm ? count('llm.token_count.completion') : null,
      modelName,
      provider,
      cost?.prompt ?? null,
      cost?.completion ?? null,
      cost?.total ?? null,
      SOURCE_EVENT,
    ];
    if (row.length !== SPAN_COLUMNS.length)
      throw new Error(`COPY baseline rows have ${row.length} fields, spans has ${SPAN_COLUMNS.length} columns`);
    lines.push(row.map(copyField).join('\t'));
    if (lines.length === chunkRows) {
      chunks.push(`${lines.join('\n')}\n`);
      lines = [];
    }
  });
  if (lines.length > 0) chunks.push(`${lines.join('\n')}\n`);
  return chunks;
};

const createScratch = `DROP TABLE IF EXISTS ${SCRATCH_TABLE}; CREATE TABLE ${SCRATCH_TABLE} (LIKE spans INCLUDING ALL)`;
const copySql = `COPY ${SCRATCH_TABLE} (${SPAN_COLUMNS.join(', ')}) FROM STDIN`;

export type CopyResult = {
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  /** Busy CPU of the whole machine while copying (all processes; run on a quiet machine). */
  readonly machineCpuSeconds: number;
};

const startClock = () => ({ at: performance.now(), busy: machineBusySeconds() });

const result = (rows: number, started: ReturnType<typeof startClock>): CopyResult => {
  const seconds = (performance.now() - started.at) / 1000;
  return { rows, seconds, rowsPerSecond: rows / seconds, machineCpuSeconds: machineBusySeconds() - started.busy };
};

const copyOnce = (client: pg.Client, chunks: readonly string[]) =>
  new Promise<void>((resolve, reject) => {
    const stream = client.query(copyFrom(copySql));
    // Once Postgres refused the COPY the stream has no connection: writing more would throw out of
    // a 'drain' callback and kill the process instead of rejecting with the server's message.
    let failed = false;
    stream.on('error', (error) => {
      failed = true;
      reject(error);
    });
    stream.on('finish', () => resolve());
    let i = 0;
    const write = () => {
      while (i < chunks.length) {
        if (failed) return;
        if (!stream.write(chunks[i++]!)) {
          stream.once('drain', write);
          return;
        }
      }
      stream.end();
    };
    write();
  });

/**
 * Postgres. `streams: 1, perChunk: false`: ONE `COPY ... FROM STDIN` of every row. Otherwise
 * `streams` connections each run one COPY per chunk, taking the chunks in turn, the way
 * concurrent exporters send batches. The scratch table is dropped afterwards.
 */
export const copyIntoPostgres = async (
  url: string,
  chunks: readonly string[],
  rows: number,
  options: { readonly streams: number; readonly perChunk: boolean },
): Promise<CopyResult> => {
  const streams = options.perChunk ? options.streams : 1;
  const clients = Array.from({ length: streams }, () => new pg.Client({ connectionString: url }));
  await Promise.all(clients.map((c) => c.connect()));
  try {
    await clients[0]!.query(createScratch);
    await clients[0]!.query('CHECKPOINT');
    const started = startClock();
    if (options.perChunk) {
      let next = 0;
      await Promise.all(
        clients.map(async (client) => {
          while (next < chunks.length) await copyOnce(client, [chunks[next++]!]);
        }),
      );
    } else {
      await copyOnce(clients[0]!, chunks);
    }
    const outcome = result(rows, started);
    const { count } = (await clients[0]!.query<{ count: string }>(`SELECT count(*) FROM ${SCRATCH_TABLE}`)).rows[0]!;
    if (Number(count) !== rows) throw new Error(`COPY baseline stored ${count} rows, expected ${rows}`);
    return outcome;
  } finally {
    await clients[0]!.query(`DROP TABLE IF EXISTS ${SCRATCH_TABLE}`).catch(() => undefined);
    await Promise.all(clients.map((c) => c.end()));
  }
};

/** PGlite (one session): one `COPY ... FROM '/dev/blob'` per chunk, in order. */
export const copyIntoPglite = async (db: PGlite, chunks: readonly string[], rows: number): Promise<CopyResult> => {
  await db.exec(createScratch);
  await db.exec('CHECKPOINT');
  try {
    const started = startClock();
    for (const chunk of chunks) {
      await db.query(`COPY ${SCRATCH_TABLE} (${SPAN_COLUMNS.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([chunk]) });
    }
    const outcome = result(rows, started);
    const { count } = (await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${SCRATCH_TABLE}`)).rows[0]!;
    if (count !== rows) throw new Error(`COPY baseline stored ${count} rows, expected ${rows}`);
    return outcome;
  } finally {
    await db.exec(`DROP TABLE IF EXISTS ${SCRATCH_TABLE}`).catch(() => undefined);
  }
};
