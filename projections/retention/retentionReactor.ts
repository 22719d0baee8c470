import { DomainError } from '../../domain/errors.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { deleteTelemetry } from '../../domain/tracing/deleteTelemetry.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { tracesStartedBefore } from '../tracing/erasureQueries.ts';

/** Expire these traces of one project (deleted like a user's delete, by the policy). */
export type ExpireTraces = {
  readonly projectId: string;
  readonly projectName: string;
  readonly traceIds: readonly string[];
  readonly policy: string;
  readonly startedBefore: string;
};

/** The actor of a policy's deletions: the erasure reactor records such removals as retention. */
export const RETENTION_ACTOR_PREFIX = 'retention:';
const PER_COMMAND = 1000;
const PER_RUN = 50_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The default retention policy (`SERVICE_DEFAULT_RETENTION_POLICY_DAYS`), applied on a schedule by
 * one process among replicas: traces that started more than `days` ago are deleted (TraceDeleted
 * by the actor `retention:default`, at most 50,000 a run, 1,000 per append), and the erasure
 * reactor then removes their spans, annotations and notes from the log and records the removal
 * as retention. Sessions left without traces go with them (the read models' rule).
 */
export const retentionReactor = (deps: {
  readonly store: EventStore;
  readonly days: number;
  readonly everyMs: number;
}): Reactor<ExpireTraces> => ({
  name: 'retention',
  schedule: {
    everyMs: deps.everyMs,
    react: async ({ db, now }) => {
      if (deps.days <= 0) return [];
      const cutoff = new Date(now.getTime() - deps.days * DAY_MS);
      const expired = await tracesStartedBefore(db, cutoff, PER_RUN);
      const byProject = new Map<string, { name: string; traceIds: string[] }>();
      for (const row of expired) {
        const entry = byProject.get(row.project_id) ?? { name: row.name, traceIds: [] };
        entry.traceIds.push(row.trace_id);
        byProject.set(row.project_id, entry);
      }
      return [...byProject].flatMap(([projectId, { name, traceIds }]) =>
        Array.from({ length: Math.ceil(traceIds.length / PER_COMMAND) }, (_, i) => ({
          projectId,
          projectName: name,
          traceIds: traceIds.slice(i * PER_COMMAND, (i + 1) * PER_COMMAND),
          policy: 'default',
          startedBefore: cutoff.toISOString(),
        })),
      );
    },
  },
  async issue(command) {
    try {
      await deleteTelemetry(
        deps.store,
        command.projectName,
        { type: 'DeleteTraces', projectId: command.projectId, traceIds: command.traceIds },
        { actor: `${RETENTION_ACTOR_PREFIX}${command.policy}`, requestId: null },
      );
    } catch (error) {
      // The project was deleted meanwhile: its traces went with it.
      if (!(error instanceof DomainError)) throw error;
    }
  },
});
