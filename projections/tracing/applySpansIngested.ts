import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { SpansIngested, SpansIngestedData } from '../../domain/tracing/events.ts';
import type { PriceBook } from '../../domain/prices/priceBook.ts';
import { erasedSpansOf, spanSlots, type ErasedSpan } from '../../domain/tracing/erasedSpans.ts';
import { storableBatch } from '../../domain/tracing/storable.ts';
import { withOpenInference } from '../../domain/tracing/openInferenceFromGenAi.ts';
import type { IdAllocator } from './idAllocator.ts';
import { insertRows } from './insertRows.ts';
import { proposeSessions, type SessionRow } from './proposeSessions.ts';
import { partitionOfTrace } from './tracingPartitions.ts';
import { recomputeSessions, recomputeTraces } from './recompute.ts';
import { adjustTraceRollup } from '../metrics/traceRollup.ts';
import { copyFromStdin } from '../copyFromStdin.ts';
import { renderSpan, SPAN_COLUMNS, spanCopyLine, type RenderedSpan } from './renderSpan.ts';
import { traceRow, type PendingSpan, type TraceRow } from './traceRow.ts';
import { ensureSpanPartitions } from './spanPartitions.ts';

type TraceCandidate = { readonly id: number; readonly traceId: string; readonly projectId: number };
type SessionCandidate = { readonly id: number; readonly sessionId: string; readonly traceId: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The event's batch as it may be stored (`storable.ts`): ingest normalises before appending, but
 * the log also holds events written before those rules, and a replay must build the same rows
 * from them as the live run did. A project id that is not a uuid (a crafted event) matches no project.
 * Spans that speak the GenAI conventions or the Vercel AI SDK's get their OpenInference attributes,
 * kind and session here (`openInferenceFromGenAi.ts`), so the event keeps what was sent.
 */
const storedBatch = ({ data }: StoredEvent & SpansIngested): SpansIngestedData & { readonly erased: readonly ErasedSpan[] } => {
  const projectId =
    typeof data?.projectId === 'string' && UUID.test(data.projectId)
      ? data.projectId.toLowerCase()
      : '00000000-0000-0000-0000-000000000000';
  const batch = storableBatch(data);
  return { ...batch, spans: batch.spans.map(withOpenInference), projectId, erased: erasedSpansOf(data) };
};

const TRACE_COLUMNS = [
  ['id', 'int8'],
  ['trace_id', 'text'],
  ['project_id', 'int8'],
  ['session_id', 'int8'],
  ['start_time', 'timestamptz'],
  ['end_time', 'timestamptz'],
  ['root_span_id', 'text'],
  ['span_count', 'int4'],
  ['error_count', 'int4'],
  ['token_count_prompt', 'int8'],
  ['token_count_completion', 'int8'],
  ['cost_prompt', 'float8'],
  ['cost_completion', 'float8'],
  ['cost_total', 'float8'],
] as const satisfies readonly (readonly [keyof TraceRow, string])[];

const storedTrace = z.object({
  id: z.bigint(),
  trace_id: z.string(),
  project_id: z.bigint(),
  session_id: z.bigint().nullable(),
  start_time: z.string(),
  end_time: z.string(),
});

/** What applying these events needs that no database does: the storable batches, this partition's spans rendered. */
export type PreparedSpans = {
  /** The events' ids: each span row names the event it came from (erasure finds it by that). */
  readonly eventIds: readonly string[];
  readonly batches: readonly StoredBatch[];
  /** Per batch, per span: rendered when its trace is this partition's, null otherwise. */
  readonly rendered: readonly (readonly (RenderedSpan | null)[])[];
};

type StoredBatch = SpansIngestedData & { readonly erased: readonly ErasedSpan[] };

/** Which traces' rows this projector writes (tracingPartitions.ts): all of them with one partition. */
export type SpanPartition = { readonly index: number; readonly count: number };

export const WHOLE_LOG: SpanPartition = { index: 0, count: 1 };

/**
 * The storable batch of an event, worked out once per event object: the partitions of one process
 * share the events of one read, and each needs every span's trace and session (for the ids).
 */
const storedBatches = new WeakMap<StoredEvent, StoredBatch>();
const storedBatchOnce = (event: StoredEvent & SpansIngested): StoredBatch => {
  let batch = storedBatches.get(event);
  if (batch === undefined) {
    batch = storedBatch(event);
    storedBatches.set(event, batch);
  }
  return batch;
};

/**
 * The CPU-bound half of applying spans (normalising, rendering attributes, JSON), apart from the
 * database half so the projector can run it for the next events while Postgres writes the rows
 * of these (`applySpansIngested`'s `whileWriting`). Pure: it allocates no ids; LLM spans are priced
 * with `prices` (the prices the log holds before these events). Only the spans of `partition`'s
 * traces are rendered.
 */
export const prepareSpans = (
  events: readonly (StoredEvent & SpansIngested)[],
  prices: PriceBook,
  partition: SpanPartition = WHOLE_LOG,
): PreparedSpans => {
  const batches = events.map(storedBatchOnce);
  const mine = (traceId: string) => partitionOfTrace(traceId, partition.count) === partition.index;
  return {
    eventIds: events.map((e) => e.id),
    batches,
    rendered: batches.map((b) => b.spans.map((span) => (mine(span.traceId) ? renderSpan(span, prices) : null))),
  };
};

/**
 * Applies consecutive `SpansIngested` events (prepared by `prepareSpans`) with a fixed number of
 * statements, however many spans they hold. Every row is built in TypeScript, whole (JSON columns,
 * attribute_index, a new trace's aggregates), and written once (`insertRows`); Postgres re-parses
 * no JSON document and recomputes only what predates the batch (traces that already had spans,
 * sessions). `whileWriting` runs once the spans' INSERT is on its way to Postgres.
 *
 * Duplicates (a span id already stored, or repeated in these events) are left out before the
 * insert: the first occurrence in log order wins, as in a replay. What is stored is read inside
 * this transaction, after the runner locked the checkpoint row, so no other writer of these
 * tables can change it meanwhile (a second process applying the same batch waits for the lock,
 * then finds the checkpoint past it).
 */
export const applySpansIngested = async (
  tx: DatabaseTransactionConnection,
  { eventIds, batches, rendered }: PreparedSpans,
  ids: IdAllocator,
  whileWriting: () => void = () => undefined,
): Promise<void> => {
  const projectIds = [...new Set(batches.map((b) => b.projectId))];
  const projects = new Map(
    (
      await tx.any(sql.type(z.object({ id: z.bigint(), project_id: z.string() }))`
        SELECT id, project_id::text FROM projects WHERE project_id = ANY(${sql.array(projectIds, 'uuid')})`)
    ).map((r) => [r.project_id, Number(r.id)]),
  );

  // The first candidate of a trace (and of a trace's session) in log order wins: its row id,
  // its project. Ids are allocated per event (never per batch), so a replay allocates the same ones.
  const traceCandidates = new Map<string, TraceCandidate>();
  const sessionCandidates = new Map<string, SessionCandidate>();
  const pending: PendingSpan[] = [];
  for (const [b, batch] of batches.entries()) {
    const project = projects.get(batch.projectId);
    // The project was deleted after these spans were acknowledged: they went with it.
    if (project === undefined) continue;
    const eventTraces = new Set<string>();
    const eventSessions = new Map<string, number>();
    const traceSession = new Map<string, string>();
    // Spans removed from the event since (erasedSpans.ts) take their ids and their place in the
    // order as they did live, so every remaining row gets the same id; they build no row. Spans
    // of other partitions' traces take their ids too and build no row here.
    const renderedHere = rendered[b]!;
    for (const slot of spanSlots(
      batch.spans.map((_, k) => k),
      batch.erased,
    )) {
      const mine = slot.erased ? null : renderedHere[slot.span]!;
      const span = slot.erased ?? batch.spans[slot.span]!;
      if (!eventTraces.has(span.traceId)) {
        eventTraces.add(span.traceId);
        const id = ids.next('trace');
        if (!traceCandidates.has(span.traceId)) traceCandidates.set(span.traceId, { id, traceId: span.traceId, projectId: project });
      }
      const id = ids.next('span');
      if (mine) pending.push({ id, rendered: mine, sourceEvent: eventIds[b]! });
      if (span.sessionId !== null && !traceSession.has(span.traceId)) {
        traceSession.set(span.traceId, span.sessionId);
        if (!eventSessions.has(span.sessionId)) eventSessions.set(span.sessionId, ids.next('session'));
      }
    }
    for (const [traceId, sessionId] of traceSession) {
      if (!sessionCandidates.has(traceId)) sessionCandidates.set(traceId, { id: eventSessions.get(sessionId)!, sessionId, traceId });
    }
  }
  if (pending.length === 0) return;

  const seen = new Set<string>();
  const firsts = pending.filter((p) => !seen.has(p.rendered.span.spanId) && seen.add(p.rendered.span.spanId));
  const stored = new Set(
    await tx.anyFirst(sql.type(z.object({ span_id: z.string() }))`
      SELECT span_id FROM spans WHERE span_id = ANY(${sql.array([...seen], 'text')})`),
  );
  const fresh = stored.size === 0 ? firsts : firsts.filter((p) => !stored.has(p.rendered.span.spanId));

  const storedTraces = new Map(
    (
      await tx.any(sql.type(storedTrace)`
        SELECT id, trace_id, project_id, session_id, start_time::text, end_time::text
        FROM traces WHERE trace_id = ANY(${sql.array([...traceCandidates.keys()], 'text')})`)
    ).map((t) => [t.trace_id, t]),
  );

  // A trace keeps the project it was created in; one created now holds only spans of this batch.
  const spanRows: string[] = [];
  const newTraceSpans = new Map<string, PendingSpan[]>();
  const touched = new Set<number>();
  for (const p of fresh) {
    const known = storedTraces.get(p.rendered.span.traceId);
    if (known !== undefined) {
      touched.add(Number(known.id));
      spanRows.push(spanCopyLine(p.rendered, p.id, { id: Number(known.id), projectId: Number(known.project_id) }, p.sourceEvent));
      continue;
    }
    const candidate = traceCandidates.get(p.rendered.span.traceId)!;
    const spans = newTraceSpans.get(candidate.traceId);
    if (spans === undefined) newTraceSpans.set(candidate.traceId, [p]);
    else spans.push(p);
    spanRows.push(spanCopyLine(p.rendered, p.id, candidate, p.sourceEvent));
  }
  const newTraces = new Map([...newTraceSpans].map(([traceId, spans]) => [traceId, traceRow(traceCandidates.get(traceId)!, spans)]));

  // A trace without a session joins the one its earliest candidate names (later spans cannot move
  // a trace); a session id not stored yet becomes a session of the project of the trace that
  // brought it, with the row id of its earliest candidate.
  const links = [...sessionCandidates.values()]
    .filter((c) => newTraces.has(c.traceId) || storedTraces.get(c.traceId)?.session_id === null)
    .sort((a, b) => a.id - b.id);
  const sessionRowids = new Map<string, number>();
  if (links.length > 0) {
    // The earliest candidate of each session (links are in id order, i.e. log order).
    const proposals = new Map<string, SessionRow>();
    for (const c of links) {
      if (proposals.has(c.sessionId)) continue;
      const trace = newTraces.get(c.traceId) ?? storedTraces.get(c.traceId)!;
      // Placeholder times: recomputeSessions below sets them from the session's traces.
      proposals.set(c.sessionId, {
        id: c.id,
        session_id: c.sessionId,
        project_id: Number(trace.project_id),
        start_time: trace.start_time,
        end_time: trace.end_time,
      });
    }
    for (const [sessionId, id] of await proposeSessions(tx, [...proposals.values()])) sessionRowids.set(sessionId, id);
  }
  const sessionsToRecompute = new Set<number>();
  const relinked: { id: number; session_id: number }[] = [];
  for (const c of links) {
    const session = sessionRowids.get(c.sessionId)!;
    sessionsToRecompute.add(session);
    const created = newTraces.get(c.traceId);
    if (created !== undefined) created.session_id = session;
    else relinked.push({ id: Number(storedTraces.get(c.traceId)!.id), session_id: session });
  }

  await insertRows(tx, 'traces', TRACE_COLUMNS, [...newTraces.values()]);
  if (newTraces.size > 0)
    await adjustTraceRollup(
      tx,
      sql.fragment`t.id = ANY(${sql.array(
        [...newTraces.values()].map((t) => t.id),
        'int8',
      )})`,
      1,
    );
  if (spanRows.length > 0) {
    // The weeks these spans start in (spanPartitions.ts); which exist does not change what is stored.
    await ensureSpanPartitions(
      tx,
      fresh.map((p) => p.rendered.startMicros),
      Date.now(),
    );
    const writing = copyFromStdin(tx, 'spans', SPAN_COLUMNS, spanRows);
    // Once the statement is sent (a macrotask later: slonik's own steps are promise callbacks),
    // Postgres works on it while this process runs `whileWriting`.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      whileWriting();
    } finally {
      await writing;
    }
  }
  if (relinked.length > 0) {
    await tx.query(sql.unsafe`
      UPDATE traces t SET session_id = x.session_id
      FROM unnest(${sql.array(
        relinked.map((r) => r.id),
        'int8',
      )}, ${sql.array(
        relinked.map((r) => r.session_id),
        'int8',
      )}) AS x(id, session_id)
      WHERE t.id = x.id AND t.session_id IS NULL`);
  }
  for (const session of await recomputeTraces(tx, [...touched])) sessionsToRecompute.add(session);
  await recomputeSessions(tx, [...sessionsToRecompute]);
};
