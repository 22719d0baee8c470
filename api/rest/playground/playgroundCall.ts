import { randomBytes } from 'node:crypto';
import { type ChatMessage, playgroundSpanBatch, type TokenUsage, type ToolCall } from '../../../domain/playground/playgroundSpan.ts';
import type { Variables } from '../../../domain/playground/renderTemplate.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import type { AppDeps } from '../../appDeps.ts';
import type { Prepared } from './playgroundRequest.ts';
import { DEFAULT_PLAYGROUND_SETTINGS } from './playgroundSettings.ts';
import { type ProviderEvent, providerFailure, providerStream } from './providerStream.ts';

/** How one provider call ended; `recorded` is false when its trace could not be stored. */
export type CallResult = {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: TokenUsage | null;
  readonly finishReason: string | null;
  /** The message shown to the person: the provider's status (never its body), a timeout, a closed connection. */
  readonly error: string | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly recorded: boolean;
};

const redacted = (text: string, key: string | null): string =>
  key !== null && key.length >= 4 ? text.replaceAll(key, '[redacted]') : text;

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * One provider call, recorded as a trace in the playground project whatever its outcome.
 * `onEvent` sees every event as it arrives (the chat route streams them on); `cancelled` is the
 * caller going away (a closed tab), which also stops the provider call and so the spending.
 */
export const callAndRecord = async (
  deps: AppDeps,
  p: Prepared,
  run: { readonly messages: readonly ChatMessage[]; readonly variables: Variables },
  context: CommandContext,
  options: { readonly cancelled: AbortSignal; readonly onEvent?: (event: ProviderEvent) => void },
): Promise<CallResult> => {
  const timeoutMs = (deps.playground ?? DEFAULT_PLAYGROUND_SETTINGS).timeoutSeconds * 1000;
  const abort = new AbortController();
  let timedOut = false;
  // An idle timeout, not a deadline: a long answer that keeps streaming is not cut off.
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const cancel = () => abort.abort();
  if (options.cancelled.aborted) abort.abort();
  else options.cancelled.addEventListener('abort', cancel, { once: true });
  const startMs = Date.now();
  let text = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: TokenUsage | null = null;
  let finishReason: string | null = null;
  let error: string | null = null;
  try {
    for await (const event of providerStream({
      sdk: p.provider.sdk,
      apiKey: p.apiKey,
      baseUrl: p.baseUrl,
      model: p.spec.model_name,
      messages: run.messages,
      invocationParameters: p.spec.invocation_parameters,
      tools: p.spec.tools,
      timeoutMs,
      signal: abort.signal,
      debug: (message) =>
        deps.logger.debug(
          { requestId: context.requestId, provider: p.provider.name, sdk: redacted(message, p.apiKey).slice(0, 2000) },
          'playground provider SDK',
        ),
    })) {
      timer.refresh();
      if (event.type === 'delta') text += event.text;
      else if (event.type === 'tool_call_delta') {
        const call = calls.get(event.index) ?? { id: '', name: '', arguments: '' };
        if (event.id) call.id = event.id;
        if (event.name) call.name += event.name;
        call.arguments += event.arguments;
        calls.set(event.index, call);
      } else if (event.type === 'usage') usage = event.usage;
      else finishReason = event.reason;
      options.onEvent?.(event);
    }
    // The SDKs end a stream quietly when it is aborted: a cut-off answer must not look complete.
    if (abort.signal.aborted) throw new Error('aborted');
  } catch (e) {
    if (abort.signal.aborted && !timedOut) error = 'the client closed the connection';
    else {
      const failure = providerFailure(p.provider.name, e, { timeoutMs, timedOut, keySent: p.apiKey !== null });
      error = failure.message;
      // What the destination answered stays in the debug log (a provider may echo the key: never that).
      if (failure.upstream !== null)
        deps.logger.debug(
          { requestId: context.requestId, provider: p.provider.name, upstream: redacted(failure.upstream, p.apiKey).slice(0, 2000) },
          'playground provider call failed',
        );
    }
  } finally {
    clearTimeout(timer);
    options.cancelled.removeEventListener('abort', cancel);
  }
  const endMs = Math.max(Date.now(), startMs);
  const toolCalls: ToolCall[] = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  const traceId = hex(16);
  const spanId = hex(8);
  let recorded = true;
  try {
    await ingestSpans(
      deps.store,
      [
        playgroundSpanBatch({
          traceId,
          spanId,
          startUnixNano: BigInt(startMs) * 1_000_000n,
          endUnixNano: BigInt(endMs) * 1_000_000n,
          provider: p.provider.otelName,
          modelName: p.spec.model_name,
          messages: run.messages,
          invocationParameters: p.spec.invocation_parameters,
          tools: p.spec.tools,
          variables: run.variables,
          output: { text, toolCalls },
          usage,
          error,
        }),
      ],
      context,
    );
  } catch (e) {
    deps.logger.error({ err: e, requestId: context.requestId }, 'playground run could not be recorded');
    recorded = false;
  }
  return { text, toolCalls, usage, finishReason, error, startMs, endMs, traceId, spanId, recorded };
};
