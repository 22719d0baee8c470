import { DomainError } from '../../domain/errors.ts';
import { eventMetadata } from '../../domain/eventMetadata.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import {
  POLICY_CHANGES,
  policyRuns,
  RETENTION_ACTOR_PREFIX,
  RETENTION_PER_RUN,
  type RetentionCommand,
  retentionCommands,
  touchedByPolicyChanges,
} from '../../domain/retention/retentionDecision.ts';
import { TRACE_RETENTION_RUNS_STREAM } from '../../domain/retention/traceRetentionPolicyStream.ts';
import { deleteTelemetry } from '../../domain/tracing/deleteTelemetry.ts';
import type { Reactor, ReactorContext } from '../reactors/reactor.ts';
import { expiredTraces } from './erasureQueries.ts';
import { projectsWithRetention, type ProjectRetention } from './traceRetentionPolicyQueries.ts';

export type { ExpireTraces, RecordRetentionRun, RetentionCommand } from '../../domain/retention/retentionDecision.ts';
export { RETENTION_ACTOR_PREFIX } from '../../domain/retention/retentionDecision.ts';

/**
 * The facts the decision needs: each project's expired traces (at most RETENTION_PER_RUN in all,
 * in the runs' order), then the commands as domain/retention/retentionDecision.ts decides them.
 */
const applyPolicies = async (
  { db, now }: ReactorContext,
  projects: readonly ProjectRetention[],
  defaultDays: number,
  withDefault: boolean,
): Promise<RetentionCommand[]> => {
  const runs = policyRuns(projects, defaultDays, withDefault, now);
  const expired = new Map<string, readonly string[]>();
  let budget = RETENTION_PER_RUN;
  for (const run of runs)
    for (const project of run.projects) {
      const traceIds =
        budget > 0 ? await expiredTraces(db, project.id, { startedBefore: run.startedBefore, keep: run.rule.maxTraces }, budget) : [];
      budget -= traceIds.length;
      expired.set(project.project_id, traceIds);
    }
  return retentionCommands(runs, expired, now);
};

/**
 * Trace retention, applied by one process among replicas (the runner holds its lock): every
 * `everyMs` for every project, and right away for the projects a policy was assigned to or
 * whose policy changed (after the read models show the change). A project's policy is its named
 * one (max_days and/or max_traces) or the default (`SERVICE_DEFAULT_RETENTION_POLICY_DAYS`). A
 * trace expires when it started before now − max_days or is older than the project's newest
 * max_traces traces. Expired traces are deleted: one TracesExpired per run and project (by the
 * actor `retention:<policy>`; several past MAX_EXPIRED_PER_EVENT traces), not one event per
 * trace, so the log keeps ~40 bytes per expired trace and the audit trail one entry per run and
 * project. The read models drop their spans and the sessions left without traces,
 * and the erasure reactor removes them, their annotations and notes from the log, recording the
 * removal as retention with the policy and cut-off. Each run of a policy is recorded first
 * (TraceRetentionApplied), so the admin sees the last run and, as the removals land, what it took.
 */
export const retentionReactor = (deps: {
  readonly store: EventStore;
  readonly days: number;
  readonly everyMs: number;
}): Reactor<RetentionCommand> => ({
  name: 'retention',
  eventTypes: POLICY_CHANGES,
  afterReadModels: true,
  react: async (events, context) => {
    const touched = touchedByPolicyChanges(events, await projectsWithRetention(context.db));
    return touched.length === 0 ? [] : applyPolicies(context, touched, deps.days, false);
  },
  schedule: {
    everyMs: deps.everyMs,
    react: async (context) => applyPolicies(context, await projectsWithRetention(context.db), deps.days, true),
  },
  async issue(command) {
    const context = {
      actor: `${RETENTION_ACTOR_PREFIX}${command.type === 'ExpireTraces' ? command.policy : command.run.policyId}`,
      requestId: null,
    };
    if (command.type === 'RecordRetentionRun') {
      await deps.store.appendToStream(
        TRACE_RETENTION_RUNS_STREAM,
        [{ type: 'TraceRetentionApplied', data: command.run, metadata: eventMetadata(context, 'ApplyTraceRetention') }],
        'any',
      );
      return;
    }
    try {
      await deleteTelemetry(
        deps.store,
        command.projectName,
        {
          type: 'ExpireTraces',
          projectId: command.projectId,
          policyId: command.policy,
          startedBefore: command.startedBefore,
          maxTraces: command.maxTraces,
          traceIds: command.traceIds,
        },
        context,
      );
    } catch (error) {
      // The project was deleted meanwhile: its traces went with it.
      if (!(error instanceof DomainError)) throw error;
    }
  },
});
