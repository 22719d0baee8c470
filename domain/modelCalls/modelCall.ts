import type { PlaygroundProvider } from '../playground/playgroundProvider.ts';

/**
 * What a call to a model provider is, for every feature that makes one (the playground today,
 * an evaluator's judge tomorrow). The adapter that speaks to OpenAI, Anthropic and OpenAI-compatible
 * servers lives outside `domain/` (adapters/outbound/modelClient.ts) and is wired in by the
 * composition root, as the span sink is: a caller holds a `ModelClient` and imports nothing of it.
 */

export type ToolCall = { readonly id: string; readonly name: string; readonly arguments: string };

/**
 * One message as sent to a provider: an assistant turn may carry the tool calls it made, and a
 * `tool` turn answers one of them by its id.
 */
export type ChatMessage = {
  readonly role: string;
  readonly content: string;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly ToolCall[];
};

export type TokenUsage = { readonly prompt: number; readonly completion: number; readonly total: number };

/** What a provider's stream yields, in the order it arrives; the same for every provider. */
export type ModelDelta =
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly id?: string; readonly name?: string; readonly arguments: string }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  | { readonly type: 'finish'; readonly reason: string };

/**
 * Who is called and with which key, as asked. The credential rules of docs/playground.md decide
 * where a stored key may go; the outbound URL rule decides which base URLs may be called.
 */
export type ModelTarget = {
  /** `OPENAI`, `ANTHROPIC` or an OpenAI-compatible one (`OLLAMA`, ...). */
  readonly provider: string;
  /** An OpenAI-compatible server's base URL (as given), or null for the configured one. */
  readonly baseUrl: string | null;
  /** The stored secret holding the key; `<PROVIDER>_API_KEY` when absent. */
  readonly apiKeySecret: string | undefined;
  /** The caller's own key for this call only; "" for none. */
  readonly apiKey: string | undefined;
  /** Permission `playground.secrets`: any stored secret may go to any allowed base URL. */
  readonly mayRouteSecrets: boolean;
};

/** A target the rules let through: where the call goes and the key it carries (server-side only). */
export type ModelEndpoint = {
  readonly provider: PlaygroundProvider;
  /** Canonical, checked against the outbound URL rule unless it is the provider's own endpoint. */
  readonly baseUrl: string;
  /** Never logged, recorded or answered: the adapter sets it as the one credential header. */
  readonly apiKey: string | null;
};

/** What is asked of the model. */
export type ModelRequest = {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  /** Passed on as they are (temperature, max_tokens, ...), in the provider's own names. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Tool definitions in the provider's shape (OpenAI's `{type: "function", function}` also works for Anthropic). */
  readonly tools: readonly unknown[];
};

/** How one call ended. `error` is what a person may read: the provider's status, never its body. */
export type ModelAnswer = {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: TokenUsage | null;
  readonly finishReason: string | null;
  readonly error: string | null;
  readonly startMs: number;
  readonly endMs: number;
};

export type ModelCallOptions = {
  /** The caller going away (a closed tab, a stopping reactor): the call stops, and so does the spending. */
  readonly cancelled: AbortSignal;
  /** Every delta as it arrives (the playground streams them on). */
  readonly onDelta?: (delta: ModelDelta) => void;
  /** Added to the debug log lines of this call (a request id). */
  readonly logContext?: Readonly<Record<string, unknown>>;
};

/** The outbound port for model providers. */
export type ModelClient = {
  /** Applies the credential and outbound URL rules; throws ModelRefusal naming what is not allowed. */
  endpoint(target: ModelTarget): Promise<ModelEndpoint>;
  /**
   * One streamed call, collected into its answer. A provider's failure, a timeout (nothing sent
   * for the configured time) or a cancellation is the answer's `error`: it never throws for those.
   */
  call(endpoint: ModelEndpoint, request: ModelRequest, options: ModelCallOptions): Promise<ModelAnswer>;
};

/**
 * A call the rules refuse before anything leaves the server: `forbidden` (a key or base URL the
 * caller may not use) or `invalid` (a target that names nothing callable). `code` is stable.
 */
export class ModelRefusal extends Error {
  constructor(
    readonly kind: 'forbidden' | 'invalid',
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ModelRefusal';
  }
}

/** Fields the adapter sets itself: a value for them among the parameters would silently lose or break the stream. */
export const RESERVED_PARAMETERS: readonly string[] = ['model', 'messages', 'stream', 'stream_options', 'tools', 'system'];

/** The reserved fields among `parameters`, in RESERVED_PARAMETERS' order. */
export const reservedParameters = (parameters: Readonly<Record<string, unknown>>): string[] =>
  RESERVED_PARAMETERS.filter((p) => Object.hasOwn(parameters, p));
