import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionType } from '../connectionType.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import { Node } from '../relay.ts';

/** OpenInference span kinds, lower-case as in Phoenix's GraphQL (REST uses upper case). */
export const SpanKind = {
  chain: 'chain',
  tool: 'tool',
  llm: 'llm',
  prompt: 'prompt',
  retriever: 'retriever',
  embedding: 'embedding',
  agent: 'agent',
  reranker: 'reranker',
  evaluator: 'evaluator',
  guardrail: 'guardrail',
  unknown: 'unknown',
} as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];
registerEnumType(SpanKind, { name: 'SpanKind' });

export const SpanStatusCode = { OK: 'OK', ERROR: 'ERROR', UNSET: 'UNSET' } as const;
export type SpanStatusCode = (typeof SpanStatusCode)[keyof typeof SpanStatusCode];
registerEnumType(SpanStatusCode, { name: 'SpanStatusCode' });

export const SortDir = { asc: 'asc', desc: 'desc' } as const;
export type SortDir = (typeof SortDir)[keyof typeof SortDir];
registerEnumType(SortDir, { name: 'SortDir' });

export const TraceColumn = { startTime: 'startTime', latencyMs: 'latencyMs', costTotal: 'costTotal' } as const;
export type TraceColumn = (typeof TraceColumn)[keyof typeof TraceColumn];
registerEnumType(TraceColumn, {
  name: 'TraceColumn',
  description: 'What REST sorts traces by: start_time, latency_ms or cost_total (traces without a cost last, either way)',
});

/** The column a sort names → the list queries' (projections/tracing/sortKey.ts). */
export const sortColumnOf = (col: TraceColumn | SpanColumn | ProjectSessionColumn): 'start_time' | 'latency_ms' | 'cost_total' =>
  col === 'latencyMs' ? 'latency_ms' : col === 'costTotal' ? 'cost_total' : 'start_time';

@ObjectType({ description: 'USD at the prices in force when each LLM call started (Loupe; the reference has none).' })
export class Cost {
  @Field(() => Float)
  prompt!: number;

  @Field(() => Float)
  completion!: number;

  @Field(() => Float)
  total!: number;
}

@InputType({ description: 'On the start time: start inclusive, end exclusive; either may be left open.' })
export class TimeRange {
  @Field(() => DateTimeScalar, { nullable: true })
  start?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  end?: string | null;
}

export const SpanColumn = { startTime: 'startTime', latencyMs: 'latencyMs', costTotal: 'costTotal' } as const;
export type SpanColumn = (typeof SpanColumn)[keyof typeof SpanColumn];
registerEnumType(SpanColumn, { name: 'SpanColumn', description: 'costTotal: the span’s own cost; spans without one last, either way' });

export const ProjectSessionColumn = { startTime: 'startTime', costTotal: 'costTotal' } as const;
export type ProjectSessionColumn = (typeof ProjectSessionColumn)[keyof typeof ProjectSessionColumn];
registerEnumType(ProjectSessionColumn, {
  name: 'ProjectSessionColumn',
  description: 'costTotal: the sum of the session’s priced spans; sessions without a cost last, either way',
});

@InputType({ description: 'Sessions by a column, ties by row id in the same direction' })
export class ProjectSessionSort {
  @Field(() => ProjectSessionColumn)
  col!: ProjectSessionColumn;

  @Field(() => SortDir)
  dir!: SortDir;
}

@InputType({ description: 'Without a sort, spans come newest row first, as REST lists them.' })
export class SpanSort {
  @Field(() => SpanColumn)
  col!: SpanColumn;

  @Field(() => SortDir)
  dir!: SortDir;
}

@InputType()
export class TraceSort {
  @Field(() => TraceColumn)
  col!: TraceColumn;

  @Field(() => SortDir)
  dir!: SortDir;
}

@InputType({ description: 'Equality on one flat span attribute. `value` is JSON when it parses (5, true, "5"), else a plain string.' })
export class AttributeFilter {
  @Field(() => String)
  key!: string;

  @Field(() => String)
  value!: string;
}

@InputType({ description: 'The REST span filters: lists are OR within, filters AND across.' })
export class SpanFilter {
  @Field(() => [String], { nullable: true })
  names?: string[] | null;

  @Field(() => [SpanKind], { nullable: true })
  spanKinds?: SpanKind[] | null;

  @Field(() => [SpanStatusCode], { nullable: true })
  statusCodes?: SpanStatusCode[] | null;

  @Field(() => [String], { nullable: true, description: 'OpenTelemetry trace ids (hex)' })
  traceIds?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'OpenTelemetry span ids (hex)' })
  spanIds?: string[] | null;

  @Field(() => [AttributeFilter], { nullable: true })
  attributes?: AttributeFilter[] | null;
}

@ObjectType({ description: "A project's activity over a time range (traces by their start time)." })
export class ProjectSummary {
  @Field(() => Int)
  traceCount!: number;

  @Field(() => Int, { description: 'Spans of the traces in the range' })
  spanCount!: number;

  @Field(() => Float, {
    nullable: true,
    description: 'Median trace latency: first span start to last span end (the root span’s when it encloses the trace)',
  })
  latencyMsP50!: number | null;

  @Field(() => Float, { nullable: true, description: '99th percentile trace latency' })
  latencyMsP99!: number | null;

  @Field(() => Float)
  tokenCountPrompt!: number;

  @Field(() => Float)
  tokenCountCompletion!: number;

  @Field(() => Float)
  tokenCountTotal!: number;

  @Field(() => Float, { description: 'Share of traces (0..1) with at least one span in status ERROR; 0 without traces' })
  errorRate!: number;

  @Field(() => Cost, { nullable: true, description: 'Sum over the traces in the range; null when nothing is priced' })
  cost!: Cost | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'End of the most recently started trace, whatever the range' })
  lastActivityAt!: string | null;
}

@ObjectType({ implements: Node })
export class Project extends Node {
  rowid!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => String)
  gradientStartColor!: string;

  @Field(() => String)
  gradientEndColor!: string;

  @Field(() => Boolean, { description: 'Only admins, system keys and the users granted a role on it see a restricted project' })
  restricted!: boolean;
}

@ObjectType()
export class SpanContext {
  @Field(() => ID)
  traceId!: string;

  @Field(() => ID)
  spanId!: string;
}

@ObjectType({ description: 'An input or output value with its MIME type as sent (text/plain when none was).' })
export class SpanIOValue {
  @Field(() => String)
  mimeType!: string;

  @Field(() => String)
  value!: string;

  @Field(() => String, { description: 'The first 100 characters' })
  truncatedValue!: string;

  @Field(() => String, {
    nullable: true,
    description: "What a table row shows of an LLM span's messages: the last user message, the answer or its tool calls (Loupe's)",
  })
  preview?: string | null;
}

@ObjectType()
export class SpanEvent {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'exception.message for exception events, else empty' })
  message!: string;

  @Field(() => DateTimeScalar)
  timestamp!: string;

  @Field(() => GraphQLJSONObject, { description: 'Flat dotted keys, as REST shows them' })
  attributes!: Record<string, unknown>;
}

export type SpanDetails = {
  readonly attributes: Record<string, unknown>;
  readonly events: readonly { readonly name: string; readonly time_unix_nano: string; readonly attributes: Record<string, unknown> }[];
};

@ObjectType({ implements: Node })
export class Span extends Node {
  rowid!: number;
  projectRowid!: number;
  /** Known when the row came with it (saves a lookup for numChildSpans). */
  traceRowid!: number | null;
  /** Flat attributes (REST's view) and events as stored; null when the row came light (loaded on demand). */
  details!: SpanDetails | null;

  @Field(() => ID)
  spanId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => SpanKind)
  spanKind!: SpanKind;

  @Field(() => SpanStatusCode)
  statusCode!: SpanStatusCode;

  @Field(() => String)
  statusMessage!: string;

  @Field(() => DateTimeScalar)
  startTime!: string;

  @Field(() => DateTimeScalar)
  endTime!: string;

  @Field(() => Float)
  latencyMs!: number;

  @Field(() => ID, { nullable: true, description: "The parent's OpenTelemetry span id (null for a root span)" })
  parentId!: string | null;

  @Field(() => SpanContext)
  context!: SpanContext;

  @Field(() => Int, { nullable: true, description: 'Own count (LLM spans only)' })
  tokenCountPrompt!: number | null;

  @Field(() => Int, { nullable: true })
  tokenCountCompletion!: number | null;

  @Field(() => Int, { nullable: true })
  tokenCountTotal!: number | null;

  @Field(() => Cost, { nullable: true, description: 'LLM spans only; null when its model has no price' })
  cost!: Cost | null;
}

@ObjectType({ implements: Node })
export class Trace extends Node {
  rowid!: number;
  projectRowid!: number;
  sessionRowid!: number | null;
  rootSpanId!: string | null;

  @Field(() => ID)
  traceId!: string;

  @Field(() => DateTimeScalar)
  startTime!: string;

  @Field(() => DateTimeScalar)
  endTime!: string;

  @Field(() => Float)
  latencyMs!: number;

  @Field(() => ID)
  projectId!: string;

  @Field(() => ID, { nullable: true })
  projectSessionId!: string | null;

  @Field(() => Int)
  numSpans!: number;

  @Field(() => Int, { description: 'Spans in status ERROR' })
  errorCount!: number;

  @Field(() => Int, { description: 'Sum of the LLM spans’ own counts' })
  tokenCountPrompt!: number;

  @Field(() => Int)
  tokenCountCompletion!: number;

  @Field(() => Int)
  tokenCountTotal!: number;

  @Field(() => Cost, { nullable: true, description: 'Sum over its priced LLM spans; null when none is priced' })
  cost!: Cost | null;
}

@ObjectType()
export class TokenUsage {
  @Field(() => Float)
  prompt!: number;

  @Field(() => Float)
  completion!: number;

  @Field(() => Float)
  total!: number;
}

@ObjectType({ implements: Node })
export class ProjectSession extends Node {
  rowid!: number;
  projectRowid!: number;

  @Field(() => String)
  sessionId!: string;

  @Field(() => DateTimeScalar)
  startTime!: string;

  @Field(() => DateTimeScalar)
  endTime!: string;

  @Field(() => Float)
  durationMs!: number;

  @Field(() => Int)
  numTraces!: number;

  @Field(() => Int)
  numTracesWithError!: number;

  @Field(() => SpanIOValue, { nullable: true, description: "The first trace's root-span input" })
  firstInput!: SpanIOValue | null;

  @Field(() => SpanIOValue, { nullable: true, description: "The last trace's root-span output" })
  lastOutput!: SpanIOValue | null;

  @Field(() => TokenUsage)
  tokenUsage!: TokenUsage;

  @Field(() => Cost, { nullable: true, description: 'Sum over its traces; null when nothing is priced' })
  cost!: Cost | null;
}

@ObjectType({ description: "One turn of a session: a trace with its root span's input and output." })
export class SessionTurn {
  @Field(() => ID)
  traceId!: string;

  @Field(() => DateTimeScalar)
  startTime!: string;

  @Field(() => DateTimeScalar)
  endTime!: string;

  @Field(() => SpanIOValue, { nullable: true })
  input!: SpanIOValue | null;

  @Field(() => SpanIOValue, { nullable: true })
  output!: SpanIOValue | null;
}

export const ProjectConnection = connectionType('Project', () => Project);
export const TraceConnection = connectionType('Trace', () => Trace);
export const SpanConnection = connectionType('Span', () => Span);
export const ProjectSessionConnection = connectionType('ProjectSession', () => ProjectSession);
