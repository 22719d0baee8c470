import { DomainError } from '../../domain/errors.ts';
import { eventMetadata } from '../../domain/eventMetadata.ts';
import type { EventStore, StoredEvent } from '../../domain/eventstore/types.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { TraceRetentionApplied } from '../../domain/retention/events.ts';
import { TRACE_RETENTION_RUNS_STREAM } from '../../domain/retention/traceRetentionPolicyStream.ts';
import { deleteTelemetry } from '../../domain/tracing/deleteTelemetry.ts';
import type { Reactor, ReactorContext } from '../reactors/reactor.ts';
import { expiredTraces } from '../tracing/erasureQueries.ts';
import { projectsWithRetention, type ProjectRetention } from './traceRetentionPolicyQueries.ts';

/** Record that a policy ran (TraceRetentionApplied), before the deletions of that run. */
export type RecordRetentionRun = { readonly type: 'RecordRetentionRun'; readonly run: TraceRetentionApplied['data'] };

/** Expire these traces of one project (TracesExpired: one event per run and project, by the policy). */
export type ExpireTraces = {
  readonly type: 'ExpireTraces';
  readonly projectId: string;
  readonly projectName: string;
  readonly traceIds: readonly string[];
  /** The policy's id, or `default`, and the rules this run applied. */
  readonly policy: string;
  readonly startedBefore: string | null;
  readonly maxTraces: number | null;
};

export type RetentionCommand = RecordRetentionRun | ExpireTraces;

/** The actor of a policy's deletions: the erasure reactor records such removals as retention. */
export const RETENTION_ACTOR_PREFIX = 'retention:';
const PER_RUN = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Events after which a project may keep less than before: run its policy at once rather than at the next hour. */
const POLICY_CHANGES = ['ProjectTraceRetentionPolicySet', 'TraceRetentionPolicyChanged'] as const;

type Rule = { readonly policy: string; readonly maxDays: number | null; readonly maxTraces: number | null };

/** A project's policy: its named one, else the default (none when the default keeps for ever). */
const ruleOf = (project: ProjectRetention, defaultDays: number): Rule | null =>
  project.policy_id !== null
    ? { policy: String(project.policy_id), maxDays: project.max_days, maxTraces: project.max_traces }
    : defaultDays > 0
      ? { policy: 'default', maxDays: defaultDays, maxTraces: null }
      : null;

/**
 * Applies the policies to `projects` at `now`: per policy, one run record, then the expired
 * traces of each of its projects, one command each (at most 50,000 traces a run; the rest waits
 * for the next run). The default runs (and is recorded) on the schedule even with no project.
 */
const applyPolicies = async (
  { db, now }: ReactorContext,
  projects: readonly ProjectRetention[],
  defaultDays: number,
  withDefault: boolean,
): Promise<RetentionCommand[]> => {
  const byPolicy = new Map<string, { rule: Rule; projects: ProjectRetention[] }>();
  if (withDefault && defaultDays > 0)
    byPolicy.set('default', { rule: { policy: 'default', maxDays: defaultDays, maxTraces: null }, projects: [] });
  for (const project of projects) {
    const rule = ruleOf(project, defaultDays);
    if (rule === null) continue;
    const entry = byPolicy.get(rule.policy) ?? { rule, projects: [] };
    entry.projects.push(project);
    byPolicy.set(rule.policy, entry);
  }
  const commands: RetentionCommand[] = [];
  let budget = PER_RUN;
  for (const { rule, projects: mine } of byPolicy.values()) {
    const startedBefore = rule.maxDays === null ? null : new Date(now.getTime() - rule.maxDays * DAY_MS);
    const expiries: ExpireTraces[] = [];
    for (const project of mine) {
      const traceIds = budget > 0 ? await expiredTraces(db, project.id, { startedBefore, keep: rule.maxTraces }, budget) : [];
      budget -= traceIds.length;
      if (traceIds.length > 0)
        expiries.push({
          type: 'ExpireTraces',
          projectId: project.project_id,
          projectName: project.name,
          traceIds,
          policy: rule.policy,
          startedBefore: startedBefore?.toISOString() ?? null,
          maxTraces: rule.maxTraces,
        });
    }
    commands.push(
      {
        type: 'RecordRetentionRun',
        run: {
          policyId: rule.policy,
          ranAt: now.toISOString(),
          startedBefore: startedBefore?.toISOString() ?? null,
          maxTraces: rule.maxTraces,
          projects: mine.length,
          expiredTraces: expiries.reduce((n, e) => n + e.traceIds.length, 0),
        },
      },
      ...expiries,
    );
  }
  return commands;
};

/** The projects whose policy these events may have tightened: assigned one, or having a changed policy. */
const touchedBy = (events: readonly StoredEvent[], projects: readonly ProjectRetention[]): ProjectRetention[] => {
  const projectIds = new Set<string>();
  const policyIds = new Set<number>();
  for (const e of events) {
    if (isEventOf(e, ['ProjectTraceRetentionPolicySet'])) projectIds.add(e.data.projectId);
    else if (isEventOf(e, ['TraceRetentionPolicyChanged'])) policyIds.add(e.data.policyId);
  }
  return projects.filter((p) => projectIds.has(p.project_id) || (p.policy_id !== null && policyIds.has(p.policy_id)));
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
    const touched = touchedBy(events, await projectsWithRetention(context.db));
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
