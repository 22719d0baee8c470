import * as assert from 'uvu/assert';
import { callJson } from './restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from './spanFixtures.ts';
import type { TestServer } from './testServer.ts';

export const NOW = () => new Date().toISOString();

/** A span of `kind` starting now, with OpenInference input and output values. */
export const span = (kind: string, output: string) =>
  spanRecord({
    traceId: newTraceId(),
    spanKind: kind,
    startTimeUnixNano: nanos(NOW()),
    endTimeUnixNano: nanos(NOW()),
    attributes: attrs({ 'openinference.span.kind': kind, 'input.value': 'question', 'output.value': output }),
  });

export const createEvaluator = async (server: TestServer, name: string, source: string): Promise<string> => {
  const created = await callJson(server, 'POST', '/v1/evaluators', { name, kind: 'CODE', source_code: source });
  assert.is(created.status, 200, created.text);
  return created.body.data.id;
};

export const attach = async (server: TestServer, project: string, evaluatorId: string, extra: Record<string, unknown> = {}) => {
  const attached = await callJson(server, 'POST', `/v1/projects/${project}/evaluators`, { evaluator_id: evaluatorId, ...extra });
  assert.is(attached.status, 200, attached.text);
  return attached.body.data;
};

export type Annotation = { name: string; span_id: string; annotator_kind: string; result: { label: string | null; score: number | null } };

export const annotationsOf = async (server: TestServer, project: string, spanIds: readonly string[]): Promise<Annotation[]> => {
  const query = spanIds.map((id) => `span_ids=${id}`).join('&');
  const listed = await callJson(server, 'GET', `/v1/projects/${project}/span_annotations?${query}&limit=1000`);
  return listed.status === 200 ? listed.body.data : [];
};

export const failuresOf = async (server: TestServer, evaluatorId: string) =>
  (await callJson(server, 'GET', `/v1/evaluators/${encodeURIComponent(evaluatorId)}/failures`)).body as {
    data: { target_id: string; error: string }[];
    total: number;
  };
