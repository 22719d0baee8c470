import { randomBytes } from 'node:crypto';
import type { ChatMessage, ModelAnswer, ModelDelta } from '../../../domain/modelCalls/modelCall.ts';
import { playgroundSpanBatch } from '../../../domain/playground/playgroundSpan.ts';
import type { Variables } from '../../../domain/base/renderTemplate.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import type { AppDeps } from '../../appDeps.ts';
import type { Prepared } from './playgroundRequest.ts';

/** How one provider call ended (the model port's answer), and its trace; `recorded` is false when the trace could not be stored. */
export type CallResult = ModelAnswer & {
  readonly traceId: string;
  readonly spanId: string;
  readonly recorded: boolean;
};

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * One provider call through the model port, recorded as a trace in the playground project
 * whatever its outcome. `onEvent` sees every delta as it arrives (the chat route streams them on);
 * `cancelled` is the caller going away (a closed tab), which also stops the provider call and so
 * the spending.
 */
export const callAndRecord = async (
  deps: AppDeps,
  p: Prepared,
  run: { readonly messages: readonly ChatMessage[]; readonly variables: Variables },
  context: CommandContext,
  options: { readonly cancelled: AbortSignal; readonly onEvent?: (event: ModelDelta) => void },
): Promise<CallResult> => {
  const answer = await deps.models.call(
    p.endpoint,
    { model: p.spec.model_name, messages: run.messages, parameters: p.spec.invocation_parameters, tools: p.spec.tools },
    { cancelled: options.cancelled, onDelta: options.onEvent, logContext: { requestId: context.requestId } },
  );
  const { text, toolCalls, usage, error, startMs, endMs } = answer;
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
          provider: p.endpoint.provider.otelName,
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
  return { ...answer, traceId, spanId, recorded };
};
