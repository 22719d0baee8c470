import type { StoredEvent } from '../eventstore/types.ts';
import { isEventOf } from '../loupeEvent.ts';
import type { TraceRetentionApplied } from './events.ts';

/**
 * What trace retention decides, as pure functions (the retention reactor in
 * projections/retention/retentionReactor.ts gathers the facts and issues the commands): which
 * policy governs each project, which runs a moment calls for, and, given the traces each project
 * has past its policy, the commands of those runs.
 */

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

/** At most this many traces expire per run; the rest waits for the next run. */
export const RETENTION_PER_RUN = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Events after which a project may keep less than before: run its policy at once rather than at the next hour. */
export const POLICY_CHANGES = ['ProjectTraceRetentionPolicySet', 'TraceRetentionPolicyChanged'] as const;

/** A project as retention sees it: its row id, id, name and its named policy's rule (policy_id null: the default). */
export type RetentionProject = {
  readonly id: number;
  readonly project_id: string;
  readonly name: string;
  readonly policy_id: number | null;
  readonly max_days: number | null;
  readonly max_traces: number | null;
};

export type RetentionRule = { readonly policy: string; readonly maxDays: number | null; readonly maxTraces: number | null };

/** One policy's run over its projects, with the cut-off it applies at that moment. */
export type PolicyRun = {
  readonly rule: RetentionRule;
  readonly projects: readonly RetentionProject[];
  readonly startedBefore: Date | null;
};

/** A project's policy: its named one, else the default (none when the default keeps for ever). */
export const retentionRuleOf = (project: RetentionProject, defaultDays: number): RetentionRule | null =>
  project.policy_id !== null
    ? { policy: String(project.policy_id), maxDays: project.max_days, maxTraces: project.max_traces }
    : defaultDays > 0
      ? { policy: 'default', maxDays: defaultDays, maxTraces: null }
      : null;

/**
 * The runs due at `now` for `projects`, one per policy, in the order the policies are first met.
 * The default runs (and is recorded) on the schedule even with no project (`withDefault`).
 */
export const policyRuns = (projects: readonly RetentionProject[], defaultDays: number, withDefault: boolean, now: Date): PolicyRun[] => {
  const byPolicy = new Map<string, { rule: RetentionRule; projects: RetentionProject[] }>();
  if (withDefault && defaultDays > 0)
    byPolicy.set('default', { rule: { policy: 'default', maxDays: defaultDays, maxTraces: null }, projects: [] });
  for (const project of projects) {
    const rule = retentionRuleOf(project, defaultDays);
    if (rule === null) continue;
    const entry = byPolicy.get(rule.policy) ?? { rule, projects: [] };
    entry.projects.push(project);
    byPolicy.set(rule.policy, entry);
  }
  return [...byPolicy.values()].map(({ rule, projects: mine }) => ({
    rule,
    projects: mine,
    startedBefore: rule.maxDays === null ? null : new Date(now.getTime() - rule.maxDays * DAY_MS),
  }));
};

/**
 * The commands of `runs` at `now`, given each project's expired traces (by project id; found
 * within RETENTION_PER_RUN in all): per run, its record, then one expiry per project that has
 * expired traces.
 */
export const retentionCommands = (
  runs: readonly PolicyRun[],
  expired: ReadonlyMap<string, readonly string[]>,
  now: Date,
): RetentionCommand[] =>
  runs.flatMap(({ rule, projects, startedBefore }): RetentionCommand[] => {
    const expiries: ExpireTraces[] = projects.flatMap((project) => {
      const traceIds = expired.get(project.project_id) ?? [];
      return traceIds.length === 0
        ? []
        : [
            {
              type: 'ExpireTraces',
              projectId: project.project_id,
              projectName: project.name,
              traceIds,
              policy: rule.policy,
              startedBefore: startedBefore?.toISOString() ?? null,
              maxTraces: rule.maxTraces,
            },
          ];
    });
    const run: RecordRetentionRun = {
      type: 'RecordRetentionRun',
      run: {
        policyId: rule.policy,
        ranAt: now.toISOString(),
        startedBefore: startedBefore?.toISOString() ?? null,
        maxTraces: rule.maxTraces,
        projects: projects.length,
        expiredTraces: expiries.reduce((n, e) => n + e.traceIds.length, 0),
      },
    };
    return [run, ...expiries];
  });

/** The projects whose policy these events may have tightened: assigned one, or having a changed policy. */
export const touchedByPolicyChanges = <P extends RetentionProject>(events: readonly StoredEvent[], projects: readonly P[]): P[] => {
  const projectIds = new Set<string>();
  const policyIds = new Set<number>();
  for (const e of events) {
    if (isEventOf(e, ['ProjectTraceRetentionPolicySet'])) projectIds.add(e.data.projectId);
    else if (isEventOf(e, ['TraceRetentionPolicyChanged'])) policyIds.add(e.data.policyId);
  }
  return projects.filter((p) => projectIds.has(p.project_id) || (p.policy_id !== null && policyIds.has(p.policy_id)));
};
