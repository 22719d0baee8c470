import { randomBytes } from 'node:crypto';

/**
 * Realistic OpenInference LLM traces for the benchmarks and the SIGKILL check: a CHAIN root
 * ("agent run") with 4–9 children (RETRIEVER, LLM, TOOL, LLM, nested CHAIN → LLM ...), each span
 * carrying ~2 KB `input.value` and `output.value`, token counts on LLM spans, a `session.id`
 * shared by a few consecutive traces, and a few ERROR statuses. Spans of a trace come out
 * children first (in end order), as a batch span processor exports them.
 *
 * Text comes from a seeded PRNG (reproducible sizes and content); ids are random so several
 * runs can share one database.
 */

export type AttrValue = { readonly str: string } | { readonly int: number } | { readonly float: number } | { readonly bool: boolean };

export type GeneratedSpan = {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentId: string | null;
  readonly name: string;
  /** OTLP SpanKind number: 1 INTERNAL, 2 SERVER, 3 CLIENT. */
  readonly kind: number;
  /** openinference.span.kind as sent (upper case). */
  readonly spanKind: 'CHAIN' | 'LLM' | 'RETRIEVER' | 'TOOL';
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** OTLP status code: 0 UNSET, 1 OK, 2 ERROR. */
  readonly status: { readonly code: 0 | 1 | 2; readonly message: string };
  readonly attributes: ReadonlyArray<readonly [string, AttrValue]>;
  readonly sessionId: string;
};

export type GeneratorOptions = {
  /** PRNG seed for content and shape (ids are always random). */
  readonly seed?: number;
  /** Approximate length of each input.value / output.value. */
  readonly textBytes?: number;
  /** Trace start times are spread uniformly over [now - spreadMs, now]. */
  readonly spreadMs?: number;
  /** Session ids are `<sessionPrefix>-<n>`; unique per run unless given. */
  readonly sessionPrefix?: string;
};

const mulberry32 = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const WORDS = (
  'the a of to and in is it that for on with as was by be this are or from at an but not have has which ' +
  'model answer question context document retrieval embedding vector query user assistant system prompt token ' +
  'latency cost evaluation dataset experiment span trace session project customer order refund policy shipping ' +
  'invoice account password reset billing plan upgrade support ticket priority summary analysis report result ' +
  'because however therefore although meanwhile finally first second third next step reasoning tool call search ' +
  'database record field value number date time region europe america asia price discount product catalogue item'
).split(' ');

/** ~1 MB of words; texts are slices of it, so generating costs little and strings share memory. */
const buildCorpus = (random: () => number): string => {
  const parts: string[] = [];
  let length = 0;
  while (length < 1_048_576) {
    const sentence: string[] = [];
    const n = 6 + Math.floor(random() * 14);
    for (let i = 0; i < n; i++) sentence.push(WORDS[Math.floor(random() * WORDS.length)]!);
    const text = `${sentence.join(' ')}. `;
    parts.push(text[0]!.toUpperCase() + text.slice(1));
    length += text.length;
  }
  return parts.join('');
};

const MODELS = ['gpt-4o-2024-08-06', 'gpt-4o-mini', 'claude-3-5-sonnet-20241022', 'llama-3.1-70b-instruct'];
const TOOLS = ['search_orders', 'get_weather', 'lookup_customer', 'calculator', 'web_search'];
const CHILD_PLAN: ReadonlyArray<'RETRIEVER' | 'LLM' | 'TOOL' | 'CHAIN'> = [
  'RETRIEVER',
  'LLM',
  'TOOL',
  'LLM',
  'CHAIN',
  'LLM',
  'TOOL',
  'LLM',
  'RETRIEVER',
];

export type SpanGenerator = {
  /** The spans of the next trace, children first. */
  nextTrace(): GeneratedSpan[];
};

export const createSpanGenerator = (options: GeneratorOptions = {}): SpanGenerator => {
  const random = mulberry32(options.seed ?? 42);
  const corpus = buildCorpus(random);
  const textBytes = options.textBytes ?? 2048;
  const spreadMs = options.spreadMs ?? 60 * 60 * 1000;
  const sessionPrefix = options.sessionPrefix ?? `bench-${randomBytes(4).toString('hex')}`;
  const now = BigInt(Date.now()) * 1_000_000n;
  let idPool = Buffer.alloc(0);
  let idOffset = 0;
  let session = 0;
  let turnsLeft = 0;

  const hexId = (bytes: number): string => {
    if (idOffset + bytes > idPool.length) {
      idPool = randomBytes(64 * 1024);
      idOffset = 0;
    }
    const id = idPool.toString('hex', idOffset, idOffset + bytes);
    idOffset += bytes;
    return id;
  };
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const text = (length: number) => {
    const start = Math.floor(random() * (corpus.length - length - 1));
    return corpus.slice(start, start + length);
  };
  const ioText = () => text(Math.round(textBytes * (0.85 + random() * 0.3)));

  const nextTrace = (): GeneratedSpan[] => {
    if (turnsLeft === 0) {
      session++;
      turnsLeft = int(1, 5);
    }
    turnsLeft--;
    const sessionId = `${sessionPrefix}-${session}`;
    const traceId = hexId(16);
    const rootId = hexId(8);
    const traceStart = now - BigInt(Math.floor(random() * spreadMs)) * 1_000_000n;
    const childCount = int(4, 9);
    const out: GeneratedSpan[] = [];
    let cursor = traceStart + 1_000_000n;

    const common = (kind: GeneratedSpan['spanKind'], mime: 'text/plain' | 'application/json', input: string, output: string) =>
      [
        ['openinference.span.kind', { str: kind }],
        ['input.value', { str: input }],
        ['input.mime_type', { str: mime }],
        ['output.value', { str: output }],
        ['output.mime_type', { str: mime }],
        ['session.id', { str: sessionId }],
        ['user.id', { str: `user-${session % 997}` }],
        ['metadata', { str: `{"tier":"${session % 3 === 0 ? 'gold' : 'free'}","region":"eu-${session % 4}"}` }],
      ] as Array<[string, AttrValue]>;

    const child = (kind: 'RETRIEVER' | 'LLM' | 'TOOL' | 'CHAIN', parentId: string): void => {
      const spanId = hexId(8);
      const start = cursor;
      const durationMs = kind === 'LLM' ? int(300, 4000) : int(20, 400);
      if (kind === 'CHAIN') {
        // A nested chain with its own LLM call inside.
        cursor += 1_000_000n;
        child('LLM', spanId);
      }
      const end = (kind === 'CHAIN' ? cursor : start + BigInt(durationMs) * 1_000_000n) + 1_000_000n;
      cursor = end + 1_000_000n;
      const error = kind !== 'CHAIN' && random() < 0.03;
      let attributes: Array<[string, AttrValue]>;
      let name: string;
      if (kind === 'LLM') {
        const prompt = int(200, 3000);
        const completion = int(20, 800);
        name = 'ChatCompletion';
        attributes = [
          ...common(
            'LLM',
            'application/json',
            JSON.stringify({ messages: [{ role: 'user', content: ioText() }] }),
            JSON.stringify({ content: ioText() }),
          ),
          ['llm.model_name', { str: MODELS[int(0, MODELS.length - 1)]! }],
          ['llm.provider', { str: 'openai' }],
          ['llm.invocation_parameters', { str: `{"temperature":${(random() * 1.2).toFixed(2)},"max_tokens":1024}` }],
          ['llm.token_count.prompt', { int: prompt }],
          ['llm.token_count.completion', { int: completion }],
          ['llm.token_count.total', { int: prompt + completion }],
        ];
      } else if (kind === 'RETRIEVER') {
        name = 'retrieve';
        attributes = [...common('RETRIEVER', 'text/plain', ioText(), ioText())];
        for (let d = 0; d < 3; d++) {
          attributes.push([`retrieval.documents.${d}.document.id`, { str: `doc-${int(1, 100000)}` }]);
          attributes.push([`retrieval.documents.${d}.document.score`, { float: Math.round(random() * 1000) / 1000 }]);
          attributes.push([`retrieval.documents.${d}.document.content`, { str: text(300) }]);
        }
      } else if (kind === 'TOOL') {
        name = TOOLS[int(0, TOOLS.length - 1)]!;
        attributes = [
          ...common('TOOL', 'application/json', JSON.stringify({ query: ioText() }), JSON.stringify({ result: ioText() })),
          ['tool.name', { str: name }],
          ['tool.parameters', { str: '{"type":"object","properties":{"query":{"type":"string"}}}' }],
        ];
      } else {
        name = 'plan_step';
        attributes = [...common('CHAIN', 'text/plain', ioText(), ioText()), ['llm.streaming', { bool: false }]];
      }
      out.push({
        traceId,
        spanId,
        parentId,
        name,
        kind: kind === 'LLM' || kind === 'TOOL' ? 3 : 1,
        spanKind: kind,
        startNs: start,
        endNs: end,
        status: error ? { code: 2, message: kind === 'LLM' ? 'RateLimitError: rate limited' : 'tool failed' } : { code: 1, message: '' },
        attributes,
        sessionId,
      });
    };

    let planned = 0;
    for (let i = 0; planned < childCount; i++) {
      const kind = CHILD_PLAN[i % CHILD_PLAN.length]!;
      child(kind, rootId);
      planned += kind === 'CHAIN' ? 2 : 1;
    }
    out.push({
      traceId,
      spanId: rootId,
      parentId: null,
      name: 'agent.run',
      kind: 2,
      spanKind: 'CHAIN',
      startNs: traceStart,
      endNs: cursor,
      status: { code: 1, message: '' },
      attributes: common('CHAIN', 'text/plain', ioText(), ioText()),
      sessionId,
    });
    return out;
  };
  return { nextTrace };
};

/**
 * `total` spans cut into batches of `batchSize` (the last may be shorter). Like a batch span
 * processor, a batch boundary may fall inside a trace.
 */
export function* spanBatches(generator: SpanGenerator, total: number, batchSize = 512): Generator<GeneratedSpan[]> {
  let pending: GeneratedSpan[] = [];
  let emitted = 0;
  while (emitted < total) {
    while (pending.length < batchSize && emitted + pending.length < total) pending.push(...generator.nextTrace());
    const size = Math.min(batchSize, total - emitted);
    const batch = pending.slice(0, size);
    pending = pending.slice(size);
    emitted += batch.length;
    yield batch;
  }
}
