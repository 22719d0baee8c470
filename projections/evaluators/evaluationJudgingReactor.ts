import type { Logger } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import {
  decideEvaluation,
  type EvaluationJob,
  type EvaluationSituation,
  evaluationOutcome,
  type JudgingAttachment,
  type JudgingEvaluator,
  type RetryPolicy,
} from '../../domain/evaluators/evaluationDecision.ts';
import type { EvaluatorDefinition } from '../../domain/evaluators/evaluatorDefinition.ts';
import type { EvaluationTarget } from '../../domain/evaluators/events.ts';
import { hasEvaluationOutcome, recordEvaluationOutcome } from '../../domain/evaluators/recordEvaluationOutcome.ts';
import { type EvaluationResult, type EvaluatorPorts, runEvaluator } from '../../domain/evaluators/runEvaluator.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import type { JsonObject } from '../../domain/base/jsonValue.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { findDatasetEvaluator, findEvaluator, findProjectEvaluator } from './evaluatorQueries.ts';
import { evaluationSubject, runEvaluationSubject, targetActivity } from './evaluationTargetQueries.ts';

/** The evaluations due at a tick, judged together (one slow judge does not hold the others back). */
export type JudgeEvaluations = { readonly type: 'JudgeEvaluations'; readonly jobs: readonly EvaluationJob[] };

export type EvaluationJudgingDeps = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly ports: EvaluatorPorts;
  readonly logger?: Logger;
  /** Evaluations judged at once, over all evaluators (one tick's batch). */
  readonly concurrency?: number;
  /** Evaluations of one evaluator judged at once (a provider's limit is per key). */
  readonly perEvaluatorConcurrency?: number;
  /** Evaluations one evaluator starts per minute at most. */
  readonly perEvaluatorPerMinute?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** How often due evaluations are looked for while there are none. */
  readonly everyMs?: number;
};

const jobRow = z.object({
  attachment_id: z.bigint().transform(Number),
  target: z.enum(['SPAN', 'TRACE', 'SESSION', 'RUN']),
  target_id: z.string(),
  attempts: z.number(),
  activity: z.string().nullable(),
});

/**
 * Online and dataset evaluation, the judging half: a reactor on a lane of its own
 * (projections/reactors/reactorLane.ts), so a slow judge holds up neither ingest, nor a read model,
 * nor another reactor, and a failing database is retried with the lane's backoff. Each tick its
 * schedule takes the due jobs the evaluations reactor queued (`evaluation_jobs`); each job is
 * claimed, then looked at: the evaluator's use, its current version, the target and whether the
 * log has the evaluation's outcome already go to the pure decision (domain/evaluators/
 * evaluationDecision.ts), which drops it, puts it off (a trace or session not quiet yet) or
 * judges it. The outcome goes on the evaluation's own stream, which takes one: a job handed out
 * twice (a crash after the append, a takeover, a rebuild of the read models) finds it and leaves
 * without calling a model. The queue is this reactor's own table, never rebuilt.
 */
export const evaluationJudgingReactor = (deps: EvaluationJudgingDeps): Reactor<JudgeEvaluations> => {
  const { store, pool, ports, logger } = deps;
  const concurrency = deps.concurrency ?? 16;
  const perEvaluator = deps.perEvaluatorConcurrency ?? 8;
  const perMinute = deps.perEvaluatorPerMinute ?? 600;
  const retry: RetryPolicy = { maxAttempts: 5, baseMs: 1000, maxMs: 60_000, ...deps.retry };
  const busy = new Map<number, number>();
  const started = new Map<number, number[]>();

  const where = (j: EvaluationJob) =>
    sql.fragment`attachment_id = ${j.attachmentId} AND target = ${j.target} AND target_id = ${j.targetId}`;
  // Held for 5 minutes, past any judge's timeout: a takeover never judges it while this lane still does.
  const claim = async (j: EvaluationJob): Promise<boolean> =>
    (
      await pool.query(sql.unsafe`
        UPDATE evaluation_jobs SET claimed_until = now() + interval '5 minutes'
        WHERE ${where(j)} AND attempts = ${j.attempts} AND (claimed_until IS NULL OR claimed_until < now())`)
    ).rowCount > 0;
  const done = (j: EvaluationJob) => pool.query(sql.unsafe`DELETE FROM evaluation_jobs WHERE ${where(j)}`);
  const later = (j: EvaluationJob, ms: number, change: { attempts?: number; error?: string; activity?: string }) =>
    pool.query(sql.unsafe`
      UPDATE evaluation_jobs SET attempts = ${change.attempts ?? j.attempts}, claimed_until = NULL,
        last_error = ${change.error === undefined ? sql.fragment`last_error` : sql.fragment`${change.error.slice(0, 2000)}`},
        activity = ${change.activity ?? j.seenActivity},
        due_at = now() + make_interval(secs => ${ms / 1000})
      WHERE ${where(j)}`);

  /** Whether the evaluator may start one more now (its concurrency and its rate over the last minute). */
  const mayStart = (evaluatorId: number): boolean => {
    if ((busy.get(evaluatorId) ?? 0) >= perEvaluator) return false;
    const recent = (started.get(evaluatorId) ?? []).filter((t) => t > Date.now() - 60_000);
    started.set(evaluatorId, recent);
    return recent.length < perMinute;
  };

  /** What the decision looks at, read now. */
  const situation = async (job: EvaluationJob): Promise<EvaluationSituation> => {
    let attachment: JudgingAttachment | null = null;
    let subject: JsonObject | null = null;
    let experimentId: string | null = null;
    let activity: string | null = null;
    if (job.target === 'RUN') {
      const d = await findDatasetEvaluator(pool, job.attachmentId);
      if (d)
        attachment = {
          on: 'dataset',
          id: d.id,
          evaluatorId: d.evaluator_id,
          datasetId: d.dataset_id,
          annotationName: d.annotation_name,
          inputMapping: d.input_mapping as JudgingAttachment['inputMapping'],
        };
      const run = await runEvaluationSubject(pool, job.targetId);
      subject = run?.subject ?? null;
      experimentId = run?.experimentId ?? null;
    } else {
      const a = await findProjectEvaluator(pool, job.attachmentId);
      if (a)
        attachment = {
          on: 'project',
          id: a.id,
          evaluatorId: a.evaluator_id,
          projectId: a.project_id,
          enabled: a.enabled,
          annotationName: a.annotation_name,
          inputMapping: a.input_mapping as JudgingAttachment['inputMapping'],
          delaySeconds: a.delay_seconds,
        };
      subject = await evaluationSubject(pool, job.target, job.targetId);
      activity = await targetActivity(pool, job.target as EvaluationTarget, job.targetId);
    }
    const row = attachment && (await findEvaluator(pool, { id: attachment.evaluatorId }));
    const evaluator: JudgingEvaluator | null = row
      ? { id: row.id, name: row.name, version: row.version, definition: row.definition as unknown as EvaluatorDefinition }
      : null;
    const judged =
      attachment !== null && evaluator !== null
        ? await hasEvaluationOutcome(store, {
            attachmentId: attachment.id,
            version: evaluator.version,
            target: job.target,
            targetId: job.targetId,
          })
        : false;
    return { job, attachment, evaluator, subject, activity, experimentId, judged, now: new Date() };
  };

  const judge = async (job: EvaluationJob): Promise<void> => {
    if (!(await claim(job))) return; // taken by another owner's tick, or changed since it was read
    const decision = decideEvaluation(await situation(job));
    if (decision.type === 'Drop') return void (await done(job));
    if (decision.type === 'Wait') return void (await later(job, decision.until.getTime() - Date.now(), { activity: decision.activity }));
    const evaluatorId = decision.key.evaluatorId;
    if (!mayStart(evaluatorId)) return void (await later(job, 1000, { error: 'waiting for the rate limit' }));
    busy.set(evaluatorId, (busy.get(evaluatorId) ?? 0) + 1);
    started.get(evaluatorId)?.push(Date.now()) ?? started.set(evaluatorId, [Date.now()]);
    const start = new Date().toISOString();
    let result: EvaluationResult;
    try {
      result = await runEvaluator(decision.definition, decision.args, ports);
    } catch (error) {
      result = { ok: false, error: `evaluation failed: ${(error as Error).message}`, retryable: true };
    } finally {
      busy.set(evaluatorId, (busy.get(evaluatorId) ?? 1) - 1);
    }
    const outcome = evaluationOutcome(decision, result, job.attempts, { start, end: new Date().toISOString() }, retry);
    if (outcome.type === 'Retry') return void (await later(job, outcome.inMs, { attempts: outcome.attempts, error: outcome.error }));
    await recordEvaluationOutcome(store, decision.key, outcome.command);
    await done(job);
  };

  return {
    name: 'evaluation-judging',
    schedule: {
      everyMs: deps.everyMs ?? 100,
      react: async ({ db, now }) => {
        const rows = await db.any(sql.type(jobRow)`
          SELECT attachment_id, target, target_id, attempts, activity FROM evaluation_jobs
          WHERE due_at <= ${now.toISOString()} AND (claimed_until IS NULL OR claimed_until < ${now.toISOString()})
          ORDER BY due_at LIMIT ${concurrency}`);
        if (rows.length === 0) return [];
        const jobs = rows.map((r) => ({
          attachmentId: r.attachment_id,
          target: r.target,
          targetId: r.target_id,
          attempts: r.attempts,
          seenActivity: r.activity,
        }));
        return [{ type: 'JudgeEvaluations', jobs }];
      },
    },
    async issue(command) {
      await Promise.all(
        command.jobs.map((job) =>
          judge(job).catch(async (error: unknown) => {
            // The database or the log refused: nothing was recorded; the job is tried again after a pause.
            logger?.warn({ err: error, target: job.targetId }, 'evaluation not recorded; tried again later');
            await later(job, retry.baseMs, { error: String((error as Error).message ?? error) }).catch(() => undefined);
          }),
        ),
      );
    },
  };
};
