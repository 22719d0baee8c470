import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { EvaluationTarget } from '../../domain/evaluators/events.ts';
import { firstLookDelaySeconds, sampledTargets } from '../../domain/evaluators/evaluationDecision.ts';
import { FilterError } from '../../domain/filters/filterSyntax.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { activeProjectEvaluators, findProjectEvaluator, type ProjectEvaluatorRow } from './evaluatorQueries.ts';
import { activityColumn, matchingTargets, nextWindowEnd, runEvaluations } from './evaluationTargetQueries.ts';

/** Queue the sampled targets of one window of new rows, and move the project evaluator's scan past the window. */
export type EnqueueEvaluations = {
  readonly type: 'EnqueueEvaluations';
  readonly attachmentId: number;
  readonly target: EvaluationTarget;
  /** The scan's position the window starts after (a compare-and-set: a second owner's repeat is nothing). */
  readonly after: number;
  readonly upTo: number;
  readonly targetIds: readonly string[];
  readonly delaySeconds: number;
};
/** Queue the sampled targets that started in [startTime, endTime). */
export type BackfillEvaluations = {
  readonly type: 'BackfillEvaluations';
  readonly attachmentId: number;
  readonly startTime: string;
  readonly endTime: string;
};
/** Queue the runs a dataset evaluator judges (one job per dataset evaluator and run). */
export type EnqueueRunEvaluations = {
  readonly type: 'EnqueueRunEvaluations';
  readonly jobs: readonly { readonly datasetEvaluatorId: number; readonly runId: string }[];
};
export type EvaluationCommand = EnqueueEvaluations | BackfillEvaluations | EnqueueRunEvaluations;

const WINDOW = 1000;

const scanRow = z.object({ attachment_id: z.bigint(), target: z.string(), after_rowid: z.bigint() });

const scans = async (db: CommonQueryMethods): Promise<Map<string, number>> =>
  new Map(
    (await db.any(sql.type(scanRow)`SELECT attachment_id, target, after_rowid FROM evaluation_scans`)).map((r) => [
      `${r.attachment_id}:${r.target}`,
      Number(r.after_rowid),
    ]),
  );

/** The next window of one project evaluator: null when nothing new arrived (or its filter no longer compiles). */
export const nextWindow = async (db: CommonQueryMethods, a: ProjectEvaluatorRow, after: number): Promise<EnqueueEvaluations | null> => {
  const upTo = await nextWindowEnd(db, { target: a.target, projectId: a.project_id, after, size: WINDOW });
  if (upTo === null) return null;
  let matched: { readonly targetId: string }[];
  try {
    matched = await matchingTargets(db, { target: a.target, projectId: a.project_id, filter: a.filter, rows: { after, upTo } });
  } catch (error) {
    if (error instanceof FilterError) return null; // checked when it was set; a filter the language no longer reads judges nothing
    throw error;
  }
  return {
    type: 'EnqueueEvaluations',
    attachmentId: a.id,
    target: a.target,
    after,
    upTo,
    targetIds: sampledTargets(
      a.sampling_rate,
      matched.map((m) => m.targetId),
    ),
    delaySeconds: firstLookDelaySeconds(a.target, a.delay_seconds),
  };
};

const insertJobs = async (
  db: CommonQueryMethods,
  attachmentId: number,
  target: EvaluationTarget,
  targetIds: readonly string[],
  delaySeconds: number,
) => {
  if (targetIds.length === 0) return;
  // A trace's or session's activity now: the judging lane judges it once it has stayed so for the delay.
  const activity = activityColumn(target, 'a');
  const join =
    target === 'TRACE'
      ? sql.fragment`LEFT JOIN traces a ON a.trace_id = t.id`
      : target === 'SESSION'
        ? sql.fragment`LEFT JOIN sessions a ON a.session_id = t.id`
        : sql.fragment``;
  await db.query(sql.unsafe`
    INSERT INTO evaluation_jobs (attachment_id, target, target_id, due_at, activity)
    SELECT ${attachmentId}, ${target}, t.id, now() + make_interval(secs => ${delaySeconds}), ${activity ?? sql.fragment`NULL`}
    FROM unnest(${sql.array([...targetIds], 'text')}) AS t(id) ${join}
    ON CONFLICT DO NOTHING`);
};

/**
 * Online evaluation, the deciding half: every project evaluator that is on looks at the rows of its
 * target (spans, traces or sessions) the tracing read model added since its last look, keeps those
 * its filter matches and its sampling rate picks (by a hash of the id, sampling.ts), and queues
 * them as jobs (`evaluation_jobs`), which the judging reactor (evaluationJudgingReactor.ts) judges
 * in a lane of its own. A backfill queues what started in a time range. Queueing is idempotent (one job
 * per project evaluator and target; the scan moves by compare-and-set), so a repeat after a crash
 * or a takeover queues nothing twice; what was judged is in the log, so nothing is judged twice.
 */
export const evaluationReactor = (deps: { readonly pool: DatabasePool; readonly everyMs?: number }): Reactor<EvaluationCommand> => ({
  name: 'evaluations',
  eventTypes: ['EvaluatorBackfillRequested', 'ExperimentRunRecorded'],
  afterReadModels: true,
  react: async (events, { db }) => {
    const commands: EvaluationCommand[] = events.flatMap((e) =>
      isEventOf(e, ['EvaluatorBackfillRequested'])
        ? [
            {
              type: 'BackfillEvaluations' as const,
              attachmentId: e.data.attachmentId,
              startTime: e.data.startTime,
              endTime: e.data.endTime,
            },
          ]
        : [],
    );
    // Every run recorded for an experiment of a dataset with evaluators, whoever ran the experiment.
    const runIds = events.flatMap((e) => (isEventOf(e, ['ExperimentRunRecorded']) && e.data.error === null ? [e.data.runId] : []));
    const jobs = runIds.length === 0 ? [] : await runEvaluations(db, runIds);
    if (jobs.length > 0)
      commands.push({
        type: 'EnqueueRunEvaluations',
        jobs: jobs.map((j) => ({ datasetEvaluatorId: j.dataset_evaluator_id, runId: j.run_id })),
      });
    return commands;
  },
  schedule: {
    everyMs: deps.everyMs ?? 500,
    react: async ({ db }) => {
      const marks = await scans(db);
      const commands: EvaluationCommand[] = [];
      for (const a of await activeProjectEvaluators(db)) {
        const window = await nextWindow(db, a, marks.get(`${a.id}:${a.target}`) ?? a.start_after_rowid);
        if (window !== null) commands.push(window);
      }
      return commands;
    },
  },
  async issue(command) {
    if (command.type === 'EnqueueRunEvaluations') {
      await deps.pool.query(sql.unsafe`
        INSERT INTO evaluation_jobs (attachment_id, target, target_id, due_at)
        SELECT j.id, 'RUN', j.run_id, now()
        FROM unnest(${sql.array(
          command.jobs.map((j) => j.datasetEvaluatorId),
          'int8',
        )}, ${sql.array(
          command.jobs.map((j) => j.runId),
          'text',
        )}) AS j(id, run_id)
        ON CONFLICT DO NOTHING`);
      return;
    }
    if (command.type === 'EnqueueEvaluations') {
      await deps.pool.transaction(async (tx) => {
        // Only from where this window started: a second owner that moved it first has queued these.
        const moved = await tx.query(sql.unsafe`
          INSERT INTO evaluation_scans (attachment_id, target, after_rowid) VALUES (${command.attachmentId}, ${command.target}, ${command.upTo})
          ON CONFLICT (attachment_id, target) DO UPDATE SET after_rowid = excluded.after_rowid
          WHERE evaluation_scans.after_rowid = ${command.after}`);
        if (moved.rowCount === 0) return;
        await insertJobs(tx, command.attachmentId, command.target, command.targetIds, command.delaySeconds);
      });
      return;
    }
    const a = await findProjectEvaluator(deps.pool, command.attachmentId);
    if (a === null) return;
    let after = 0;
    for (;;) {
      let chunk: { readonly rowid: number; readonly targetId: string }[];
      try {
        chunk = await matchingTargets(deps.pool, {
          target: a.target,
          projectId: a.project_id,
          filter: a.filter,
          startedFrom: new Date(command.startTime),
          startedBefore: new Date(command.endTime),
          rows: { after, upTo: Number.MAX_SAFE_INTEGER },
          limit: WINDOW,
        });
      } catch (error) {
        if (error instanceof FilterError) return;
        throw error;
      }
      if (chunk.length === 0) return;
      const picked = sampledTargets(
        a.sampling_rate,
        chunk.map((c) => c.targetId),
      );
      await insertJobs(deps.pool, a.id, a.target, picked, 0);
      after = chunk[chunk.length - 1]!.rowid;
    }
  },
});
