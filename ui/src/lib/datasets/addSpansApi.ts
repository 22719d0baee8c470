import { ApiError } from '../api/apiError.ts';
import { gql } from '../api/graphql.ts';
import { http } from '../api/http.ts';
import { addSpansToDataset, type SpanForExample } from './datasetsApi.ts';

/**
 * Adding spans ticked in a project's traces or spans table to a dataset. The table rows carry only
 * previews, so the spans' full attributes are read first; the examples are then made exactly as
 * the dataset page's "Add from spans" makes them (`addSpansToDataset`): one new version, each
 * example linked to its span.
 */

/** A ticked row: the span (a trace's root span on the traces table) by its OpenTelemetry ids. */
export type ChosenSpan = { readonly spanId: string; readonly traceId: string; readonly name: string };

type SpanNode = {
  readonly id: string;
  readonly name: string;
  readonly startTime: string;
  readonly context: { readonly spanId: string; readonly traceId: string };
  readonly attributes: string;
};

/** Enough spans per request to keep a page of 100 rows to a few small queries. */
const BATCH = 25;

const queryOf = (count: number): string => {
  const variables = Array.from({ length: count }, (_, i) => `$s${i}: String!`).join(', ');
  const fields = Array.from(
    { length: count },
    (_, i) => `s${i}: getSpanByOtelId(spanId: $s${i}) { id name startTime context { spanId traceId } attributes }`,
  ).join('\n');
  return `query SpansForDataset(${variables}) {\n${fields}\n}`;
};

/** Phoenix's REST span kind: the `openinference.span.kind` attribute as sent, taken out of the attributes. */
const asSpanForExample = (node: SpanNode): SpanForExample => {
  const attributes = JSON.parse(node.attributes) as Record<string, unknown>;
  const openinference = attributes.openinference as { span?: { kind?: unknown } } | undefined;
  const kind = openinference?.span?.kind;
  if (openinference?.span !== undefined) {
    const { kind: _kind, ...span } = openinference.span;
    attributes.openinference = { ...openinference, span };
  }
  return {
    id: node.id,
    name: node.name,
    span_kind: typeof kind === 'string' ? kind : 'UNKNOWN',
    context: { trace_id: node.context.traceId, span_id: node.context.spanId },
    start_time: node.startTime,
    attributes,
  };
};

/** The chosen spans with their attributes, in the order chosen; a span gone since is an error naming it. */
export const fetchChosenSpans = async (chosen: readonly ChosenSpan[], signal?: AbortSignal): Promise<SpanForExample[]> => {
  const found: SpanForExample[] = [];
  for (let start = 0; start < chosen.length; start += BATCH) {
    const batch = chosen.slice(start, start + BATCH);
    const variables = Object.fromEntries(batch.map((c, i) => [`s${i}`, c.spanId]));
    const reply = await gql<Record<string, SpanNode | null>>(queryOf(batch.length), variables, signal);
    batch.forEach((c, i) => {
      const node = reply[`s${i}`] ?? null;
      // Span ids are only unique within a trace: a span of another trace is not the one ticked.
      if (node === null || node.context.traceId !== c.traceId)
        throw new ApiError(404, 'span_not_found', `The span "${c.name}" (${c.spanId}) no longer exists.`);
      found.push(asSpanForExample(node));
    });
  }
  return found;
};

/** The dataset's id by its exact name (the upload answers with none when appending by name). */
export const datasetIdByName = async (name: string, signal?: AbortSignal): Promise<string | null> => {
  const page = await http<{ data: { id: string; name: string }[] }>('/v1/datasets', { query: { name, limit: 100 }, signal });
  return page.data.find((d) => d.name === name)?.id ?? null;
};

/**
 * Adds the chosen spans to the dataset named `datasetName` (made when there is none of that name)
 * as one new version; answers the dataset's id for a link to it.
 */
export const addChosenSpansToDataset = async (
  datasetName: string,
  chosen: readonly ChosenSpan[],
): Promise<{ datasetId: string | null }> => {
  const spans = await fetchChosenSpans(chosen);
  await addSpansToDataset(datasetName, spans);
  return { datasetId: await datasetIdByName(datasetName) };
};
