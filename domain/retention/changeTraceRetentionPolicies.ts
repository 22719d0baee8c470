import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { TraceRetentionPolicyCommand } from './commands.ts';
import type { TraceRetentionPolicyEvent } from './events.ts';
import { traceRetentionPolicyDecider } from './traceRetentionPolicyDecider.ts';
import { TRACE_RETENTION_POLICIES_STREAM } from './traceRetentionPolicyStream.ts';

/** Any change to the named trace retention policies or a project's policy, decided on the one policies stream. */
export const changeTraceRetentionPolicies = (
  store: EventStore,
  command: TraceRetentionPolicyCommand,
  context: CommandContext,
): Promise<CommandResult<TraceRetentionPolicyEvent>> =>
  handleCommand(store, TRACE_RETENTION_POLICIES_STREAM, traceRetentionPolicyDecider, command, context);
