import { ApiError } from '../api/apiError.ts';
import { apiUrl, http, renewSession, sessionLost } from '../api/http.ts';
import type { PlaygroundDraft } from './playgroundDraft.ts';
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
  readonly parameters: Record<string, unknown>;
  readonly tools: readonly Record<string, unknown>[];
};

const runBody = ({ draft, variables, parameters, tools }: RunRequest) => ({
  provider: draft.provider,
  model_name: draft.modelName.trim(),
  base_url: draft.baseUrl.trim() === '' ? null : draft.baseUrl.trim(),
  template: { type: 'chat', messages: draft.messages.map((m) => ({ role: m.role, content: m.content })) },
  template_format: draft.templateFormat,
  variables,
  invocation_parameters: parameters,
  tools,
});

const post = (body: unknown, signal: AbortSignal) =>
  fetch(apiUrl('/v1/playground/chat'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });

/**
 * Runs the draft and calls `onEvent` for each event as it arrives (tokens appear as they stream).
 * A refusal before the stream opens (422 naming the field, 403 for viewers) is thrown as an
 * ApiError, like every other call; a provider's refusal arrives as an `error` event.
 */
export const runPlayground = async (request: RunRequest, onEvent: (event: PlaygroundEvent) => void, signal: AbortSignal): Promise<void> => {
  const body = runBody(request);
  let response = await post(body, signal);
  if (response.status === 401) {
    if (await renewSession()) response = await post(body, signal);
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
      onEvent(JSON.parse(data) as PlaygroundEvent);
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
  const { draft, parameters, tools } = request;
  const type = draft.provider.toLowerCase();
  return http('/v1/prompts', {
    method: 'POST',
    json: {
      prompt: { name, ...(description ? { description } : {}) },
      version: {
        model_provider: draft.provider,
        model_name: draft.modelName.trim(),
        template: { type: 'chat', messages: draft.messages.map((m) => ({ role: m.role, content: m.content })) },
        template_type: 'CHAT',
        template_format: draft.templateFormat,
        invocation_parameters: { type, [type]: parameters },
        ...(tools.length > 0 ? { tools: { type: 'tools', tools } } : {}),
      },
    },
  });
};
