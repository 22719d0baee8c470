import { ApiError } from '../api/apiError.ts';
import { apiUrl, http, renewSession, sessionLost } from '../api/http.ts';
import type { UploadFormat } from './fileColumns.ts';

/** The REST routes of datasets and experiments, as the pages use them (there is no GraphQL for them). */

export type Dataset = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly metadata: Record<string, unknown>;
  readonly created_at: string;
  readonly updated_at: string;
  readonly example_count: number;
};

/** `num_*`: what the version changed (Loupe's addition to the list). */
export type DatasetVersion = {
  readonly version_id: string;
  readonly description: string | null;
  readonly metadata: Record<string, unknown>;
  readonly created_at: string;
  readonly num_created_examples?: number;
  readonly num_updated_examples?: number;
  readonly num_deleted_examples?: number;
};

export type DatasetExample = {
  readonly id: string;
  readonly node_id: string;
  readonly input: unknown;
  readonly output: unknown;
  readonly metadata: unknown;
  readonly updated_at: string;
  /** Names of the example's splits (Loupe's addition). */
  readonly splits?: readonly string[];
  readonly source?: { readonly span_id: string; readonly span_node_id: string | null } | null;
};

export type Experiment = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly created_at: string;
  readonly repetitions: number;
  readonly example_count: number;
  readonly successful_run_count: number;
  readonly failed_run_count: number;
  readonly missing_run_count: number;
  readonly dataset_version_id: string;
  readonly project_name?: string | null;
  readonly metadata?: Record<string, unknown>;
  /** USD, the sum of its runs' trace costs; null while none of them is priced. */
  readonly cost?: { readonly prompt: number; readonly completion: number; readonly total: number } | null;
};

type Page<T> = { readonly data: T[]; readonly next_cursor: string | null };

const path = (id: string, rest = '') => `/v1/datasets/${encodeURIComponent(id)}${rest}`;

export const fetchDatasets = async (signal?: AbortSignal): Promise<{ datasets: Dataset[]; more: boolean }> => {
  const page = await http<Page<Dataset>>('/v1/datasets', { query: { limit: 100 }, signal });
  return { datasets: page.data, more: page.next_cursor !== null };
};

export const fetchDataset = async (id: string, signal?: AbortSignal): Promise<Dataset | null> => {
  try {
    return (await http<{ data: Dataset }>(path(id), { signal })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 422)) return null;
    throw error;
  }
};

/**
 * Newest first, in the server's order (by version row id). Not re-sorted by `created_at`: those
 * strings omit the fraction on a whole second, so a string sort can put an older version first.
 */
export const fetchVersions = async (id: string, signal?: AbortSignal): Promise<DatasetVersion[]> =>
  (await http<Page<DatasetVersion>>(path(id, '/versions'), { query: { limit: 100 }, signal })).data;

/** The examples at a version; `split` (a name) keeps only those in it. */
export const fetchExamples = async (
  id: string,
  versionId: string | null,
  signal?: AbortSignal,
  split: string | null = null,
): Promise<DatasetExample[]> =>
  (await http<{ data: { examples: DatasetExample[] } }>(path(id, '/examples'), { query: { version_id: versionId, split }, signal })).data
    .examples;

export const fetchExperiments = async (id: string, signal?: AbortSignal): Promise<Experiment[]> =>
  (await http<Page<Experiment>>(path(id, '/experiments'), { query: { limit: 100 }, signal })).data;

export type UploadRequest = {
  readonly name: string;
  readonly description: string;
  readonly file: File;
  readonly format: UploadFormat;
  readonly inputKeys: readonly string[];
  readonly outputKeys: readonly string[];
  readonly metadataKeys: readonly string[];
};

const errorOf = async (response: Response): Promise<ApiError> => {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown; code?: unknown };
    if (typeof body.detail === 'string')
      return new ApiError(response.status, typeof body.code === 'string' ? body.code : `http_${response.status}`, body.detail);
  } catch {
    // not JSON
  }
  return new ApiError(response.status, `http_${response.status}`, text.trim().slice(0, 300) || `${response.status} ${response.statusText}`);
};

/**
 * `POST /v1/datasets/upload` as multipart: the fields go before the file (the server reads fields
 * up to the file part, then streams the file). The file's type is set from its format, since
 * browsers give a .jsonl file no type. `sync` so the answer names the new dataset.
 */
export const uploadDataset = async (request: UploadRequest): Promise<{ datasetId: string }> => {
  const form = () => {
    const body = new FormData();
    body.append('action', 'create');
    body.append('name', request.name);
    if (request.description.trim() !== '') body.append('description', request.description.trim());
    for (const key of request.inputKeys) body.append('input_keys[]', key);
    for (const key of request.outputKeys) body.append('output_keys[]', key);
    for (const key of request.metadataKeys) body.append('metadata_keys[]', key);
    const type = request.format === 'csv' ? 'text/csv' : 'application/jsonl';
    body.append('file', new Blob([request.file], { type }), request.file.name);
    return body;
  };
  const send = () =>
    fetch(apiUrl('/v1/datasets/upload?sync=true'), {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: form(),
      credentials: 'same-origin',
    });
  let response = await send();
  if (response.status === 401) {
    if (await renewSession()) response = await send();
    if (response.status === 401) sessionLost();
  }
  if (!response.ok) throw await errorOf(response);
  const reply = (await response.json()) as { data: { dataset_id: string } };
  return { datasetId: reply.data.dataset_id };
};

export type RunEvaluation = {
  readonly name: string;
  readonly score: number | null;
  readonly label: string | null;
  readonly explanation?: string | null;
  readonly error: string | null;
};

/** One run as the experiment's JSON export gives it: the example, the output and its evaluations. */
export type ExperimentRunRecord = {
  readonly example_id: string;
  readonly repetition_number: number;
  readonly input: unknown;
  readonly reference_output: unknown;
  readonly output: unknown;
  readonly error: string | null;
  readonly latency_ms: number;
  readonly start_time?: string;
  readonly trace_id?: string | null;
  /** From the run's trace (null until it arrives). */
  readonly prompt_token_count?: number | null;
  readonly completion_token_count?: number | null;
  /** USD of the run's trace; null until it arrives or when nothing in it is priced. */
  readonly cost?: { readonly prompt: number; readonly completion: number; readonly total: number } | null;
  readonly annotations: readonly RunEvaluation[];
};

export const fetchExperiment = async (id: string, signal?: AbortSignal): Promise<Experiment> =>
  (await http<{ data: Experiment }>(`/v1/experiments/${encodeURIComponent(id)}`, { signal })).data;

/** Every run with its evaluations; an experiment without runs yet has none (the export answers 404). */
export const fetchExperimentRuns = async (id: string, signal?: AbortSignal): Promise<ExperimentRunRecord[]> => {
  try {
    return await http<ExperimentRunRecord[]>(`/v1/experiments/${encodeURIComponent(id)}/json`, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'experiment_has_no_runs') return [];
    throw error;
  }
};

export type SpanForExample = {
  readonly id: string;
  readonly name: string;
  readonly span_kind: string;
  readonly context: { readonly trace_id: string; readonly span_id: string };
  readonly start_time: string;
  readonly attributes: Record<string, unknown>;
};

export const fetchProjects = async (signal?: AbortSignal): Promise<{ id: string; name: string }[]> =>
  (await http<Page<{ id: string; name: string }>>('/v1/projects', { query: { limit: 100 }, signal })).data;

export const fetchRecentSpans = async (project: string, signal?: AbortSignal): Promise<SpanForExample[]> =>
  (await http<Page<SpanForExample>>(`/v1/projects/${encodeURIComponent(project)}/spans`, { query: { limit: 50 }, signal })).data;

/** A span attribute by its dotted name, flat (`input.value`) or nested (`input: {value}`). */
const attribute = (attributes: Record<string, unknown>, name: string): unknown => {
  if (name in attributes) return attributes[name];
  let at: unknown = attributes;
  for (const part of name.split('.')) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  return at;
};

/** A span's input or output as an example field: a JSON object as it is, anything else under `key`. */
const field = (value: unknown, key: string): Record<string, unknown> => {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // plain text
    }
  }
  return { [key]: value };
};

/**
 * The spans as new examples of the dataset (a new version): input and output from the span's
 * `input.value` / `output.value`, its name and kind as metadata, and its span id as the source link.
 */
export const addSpansToDataset = async (datasetName: string, spans: readonly SpanForExample[]): Promise<void> => {
  await http('/v1/datasets/upload', {
    method: 'POST',
    query: { sync: true },
    json: {
      action: 'append',
      name: datasetName,
      inputs: spans.map((s) => field(attribute(s.attributes, 'input.value'), 'input')),
      outputs: spans.map((s) => field(attribute(s.attributes, 'output.value'), 'output')),
      metadata: spans.map((s) => ({ span_name: s.name, span_kind: s.span_kind })),
      span_ids: spans.map((s) => s.context.span_id),
    },
  });
};
