import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { deleteTelemetry } from './deleteTelemetry.ts';

export type TelemetryKind = 'spans' | 'traces' | 'sessions';

/** One row to delete: its natural id (span id, trace id, session.id) and the project that holds it. */
export type OwnedTelemetry = { readonly projectId: string; readonly projectName: string; readonly id: string };

const command = (kind: TelemetryKind, projectId: string, ids: string[]) =>
  kind === 'spans'
    ? ({ type: 'DeleteSpans', projectId, spanIds: ids } as const)
    : kind === 'traces'
      ? ({ type: 'DeleteTraces', projectId, traceIds: ids } as const)
      : ({ type: 'DeleteSessions', projectId, sessionIds: ids } as const);

/**
 * Deletes rows that may belong to several projects: one deletion append per project (each
 * project's stream judges its own), REST's and GraphQL's shared path. Returns the last position,
 * for read-your-writes; null when nothing was appended.
 */
export const deleteTelemetryAcrossProjects = async (
  store: EventStore,
  kind: TelemetryKind,
  rows: readonly OwnedTelemetry[],
  context: CommandContext,
): Promise<Position | null> => {
  const byProject = new Map<string, OwnedTelemetry[]>();
  for (const r of rows) byProject.set(r.projectId, [...(byProject.get(r.projectId) ?? []), r]);
  let last: Position | null = null;
  for (const group of byProject.values()) {
    const first = group[0]!;
    last =
      (await deleteTelemetry(
        store,
        first.projectName,
        command(
          kind,
          first.projectId,
          group.map((g) => g.id),
        ),
        context,
      )) ?? last;
  }
  return last;
};
