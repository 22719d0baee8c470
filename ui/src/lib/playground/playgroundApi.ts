import { ApiError } from '../api/apiError.ts';
import { apiUrl, http, renewSession, sessionLost } from '../api/http.ts';
import type { PlaygroundDraft, WireMessage } from './playgroundDraft.ts';
import { createSseParser } from './sseEvents.ts';

export type PlaygroundToolCall = { id: string; name: string; arguments: string };

/** The events of `POST /v1/playground/chat`, as the server sends them. */
export type PlaygroundEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool_call_delta'; index: number; id: string | null; name: string | null; arguments: string }
  | {
      type: 'done';
      finish_reason: string | null;
      tool_calls: PlaygroundToolCall[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
      trace_id: string;
      span_id: string;
    }
  | { type: 'error'; code?: string; message: string; trace_id?: string };

export type RunRequest = {
  readonly draft: PlaygroundDraft;
  readonly variables: Record<string, string>;
  /** The draft's messages in the wire shape (`draftRequest` makes them). */
  readonly messages: readonly WireMessage[];
  readonly parameters: Record<string, unknown>;
  readonly tools: readonly Record<string, unknown>[];
};

const runBody = ({ draft, variables, messages, parameters, tools }: RunRequest) => ({
  provider: draft.provider,
  model_name: draft.modelName.trim(),
  base_url: draft.baseUrl.trim() === '' ? null : draft.baseUrl.trim(),
  template: { type: 'chat', messages },
  template_format: draft.templateFormat,
  variables,
  invocation_parameters: parameters,
  tools,
});

const post = (path: string, body: unknown, signal: AbortSignal) =>
  fetch(apiUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });

/**
 * POSTs and calls `onEvent` for each Server-Sent Event as it arrives. A refusal before the stream
 * opens (422 naming the field, 403 for viewers) is thrown as an ApiError, like every other call.
 */
const streamEvents = async <E>(path: string, body: unknown, onEvent: (event: E) => void, signal: AbortSignal): Promise<void> => {
  let response = await post(path, body, signal);
  if (response.status === 401) {
    if (await renewSession()) response = await post(path, body, signal);
    if (response.status === 401) sessionLost();
  }
  if (!response.ok || response.body === null) {
    const text = await response.text().catch(() => '');
    let detail = `${response.status} ${response.statusText}`;
    let code = `http_${response.status}`;
    try {
      const parsed = JSON.parse(text) as { detail?: unknown; code?: unknown };
      if (typeof parsed.detail === 'string') detail = parsed.detail;
      if (typeof parsed.code === 'string') code = parsed.code;
    } catch {
      // not JSON: the status says it
    }
    throw new ApiError(response.status, code, detail);
  }
  const parser = createSseParser((data) => {
    try {
      onEvent(JSON.parse(data) as E);
    } catch {
      // a line that is not an event of ours is skipped
    }
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.push(value);
  }
  parser.end();
};

/** Runs the draft; tokens arrive as `delta` events, a provider's refusal as an `error` event. */
export const runPlayground = (request: RunRequest, onEvent: (event: PlaygroundEvent) => void, signal: AbortSignal): Promise<void> =>
  streamEvents('/v1/playground/chat', runBody(request), onEvent, signal);

/** The experiment as `POST /v1/playground/experiments` reports it (the experiments API's JSON). */
export type PlaygroundExperiment = {
  id: string;
  name: string;
  dataset_id: string;
  dataset_version_id: string;
  example_count: number;
  successful_run_count: number;
  failed_run_count: number;
  missing_run_count: number;
};

/** One example's run, as it finishes (not in example order: several run at once). */
export type ExampleRunEvent = {
  type: 'run';
  index: number;
  example_id: string;
  input: unknown;
  output: unknown;
  error: string | null;
  latency_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  trace_id: string | null;
};

export type ExperimentEvent =
  | { type: 'experiment'; experiment: PlaygroundExperiment; example_count: number }
  | ExampleRunEvent
  | { type: 'done'; succeeded: number; failed: number; experiment: PlaygroundExperiment | null }
  | { type: 'error'; code?: string; message: string };

export type DatasetRunRequest = RunRequest & {
  readonly datasetId: string;
  readonly versionId: string | null;
  /** Template variable → the example input key (or dotted path) it is filled from, null for the typed value. */
  readonly mapping: Record<string, string | null>;
};

/** Runs the draft over every example of a dataset version as an experiment; progress arrives as events. */
export const runPlaygroundExperiment = (
  request: DatasetRunRequest,
  onEvent: (event: ExperimentEvent) => void,
  signal: AbortSignal,
): Promise<void> =>
  streamEvents(
    '/v1/playground/experiments',
    {
      ...runBody(request),
      dataset_id: request.datasetId,
      dataset_version_id: request.versionId,
      variable_mapping: request.mapping,
      concurrency: 4,
    },
    onEvent,
    signal,
  );

/** Prompt names for the "save as new version" choice (REST lists them, newest first). */
export const listPromptNames = async (): Promise<string[]> => {
  const reply = await http<{ data: { name: string }[] }>('/v1/prompts', { query: { limit: 100 } });
  return reply.data.map((p) => p.name);
};

/**
 * Saves the draft as a new version of the prompt `name` (created when there is none; an existing
 * prompt keeps its description). The parameters go under the provider's own key, as stored prompts
 * hold them.
 */
export const saveDraftAsVersion = (
  name: string,
  description: string | null,
  request: Omit<RunRequest, 'variables'>,
): Promise<{ data: { id: string } }> => {
  const { draft, messages, parameters, tools } = request;
  const type = draft.provider.toLowerCase();
  return http('/v1/prompts', {
    method: 'POST',
    json: {
      prompt: { name, ...(description ? { description } : {}) },
      version: {
        model_provider: draft.provider,
        model_name: draft.modelName.trim(),
        template: { type: 'chat', messages },
        template_type: 'CHAT',
        template_format: draft.templateFormat,
        invocation_parameters: { type, [type]: parameters },
        ...(tools.length > 0 ? { tools: { type: 'tools', tools } } : {}),
      },
    },
  });
};
