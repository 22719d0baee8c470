import type { AppDeps } from '../../appDeps.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { EVENT_STREAM, openEventStream, sse } from './eventStream.ts';
import { callAndRecord } from './playgroundCall.ts';
import { playgroundExperimentRoute } from './playgroundExperimentRoute.ts';
import { invalid, playgroundAccess, prepareRun, renderMessages, runBody } from './playgroundRequest.ts';

export const playgroundRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      /**
       * Runs a chat (or string) template against a provider and streams the answer as Server-Sent
       * Events: `delta` (text), `tool_call_delta`, then `done` (usage, finish reason, the trace) or
       * `error` (the provider's refusal, named). Everything that can be checked before calling the
       * provider is a 4xx JSON answer instead, so a stream is only opened for a call that is made.
       * A POST like any other write: viewers may not spend the team's provider keys.
       */
      method: 'POST',
      path: '/v1/playground/chat',
      body: runBody,
      responses: { 200: EVENT_STREAM },
      handler: async ({ principal, context, closed, body }) => {
        const prepared = await prepareRun(deps, body, playgroundAccess(principal));
        const rendered = renderMessages(prepared.spec, prepared.spec.variables);
        if ('problem' in rendered) throw invalid('invalid_template', rendered.problem);
        const { out, answer } = openEventStream();
        // Not awaited: the kit sends the headers once the handler returns, and the events follow as they come.
        // A closed browser tab stops the provider call too (and stops the spending).
        callAndRecord(deps, prepared, { messages: rendered.messages, variables: prepared.spec.variables }, context, {
          cancelled: closed,
          onEvent: (event) => {
            if (event.type === 'delta') sse(out, { type: 'delta', text: event.text });
            else if (event.type === 'tool_call_delta')
              sse(out, {
                type: 'tool_call_delta',
                index: event.index,
                id: event.id ?? null,
                name: event.name ?? null,
                arguments: event.arguments,
              });
          },
        })
          .then((result) => {
            const trace = { trace_id: result.traceId, span_id: result.spanId };
            if (!result.recorded)
              sse(out, { type: 'error', code: 'not_recorded', message: 'The run finished but could not be recorded as a trace' });
            else if (result.error !== null) sse(out, { type: 'error', code: 'provider_error', message: result.error, ...trace });
            else
              sse(out, {
                type: 'done',
                finish_reason: result.finishReason,
                tool_calls: result.toolCalls,
                usage:
                  result.usage === null
                    ? null
                    : { prompt_tokens: result.usage.prompt, completion_tokens: result.usage.completion, total_tokens: result.usage.total },
                ...trace,
              });
            out.end();
          })
          .catch((e: unknown) => {
            deps.logger.error({ err: e, requestId: context.requestId }, 'playground run failed');
            out.end();
          });
        return answer;
      },
    }),
    playgroundExperimentRoute(route, deps),
  ];
};
