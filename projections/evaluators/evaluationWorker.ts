import type { Logger } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { AnnotationTarget, AnnotatorKind } from '../../domain/annotations/events.ts';
import type { EvaluatorDefinition } from '../../domain/evaluators/evaluatorDefinition.ts';
import type { RecordEvaluationOutcome } from '../../domain/evaluators/commands.ts';
import type { EvaluationFailed, EvaluationTarget } from '../../domain/evaluators/events.ts';
import type { Verdict } from '../../domain/evaluators/verdict.ts';
import { mappedArguments } from '../../domain/evaluators/inputMapping.ts';
import { hasEvaluationOutcome, recordEvaluationOutcome } from '../../domain/evaluators/recordEvaluationOutcome.ts';
import { runEvaluator, type EvaluationResult, type EvaluatorPorts } from '../../domain/evaluators/runEvaluator.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import type { JsonObject } from '../../domain/base/jsonValue.ts';
import { type EvaluatorRow, findDatasetEvaluator, findEvaluator, findProjectEvaluator } from './evaluatorQueries.ts';
import { evaluationSubject, runEvaluationSubject } from './evaluationTargetQueries.ts';

export type EvaluationWorkerOptions = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly ports: EvaluatorPorts;
  readonly logger?: Logger;
  /** Evaluations in flight at once, over all evaluators. */
  readonly concurrency?: number;
  /** Evaluations of one evaluator in flight at once (a provider's limit is per key). */
  readonly perEvaluatorConcurrency?: number;
  /** Evaluations one evaluator starts per minute at most. */
  readonly perEvaluatorPerMinute?: number;
  /** Tries of a refusal worth retrying (429, 5xx, timeouts) before the failure is recorded. */
  readonly maxAttempts?: number;
  /** The first retry's pause; each next one doubles, up to a minute. */
  readonly retryBaseMs?: number;
  readonly idleMs?: number;
};

export type EvaluationWorker = { start(): void; stop(): Promise<void> };

const job = z.object({
  attachment_id: z.bigint().transform(Number),
  target: z.enum(['SPAN', 'TRACE', 'SESSION', 'RUN']),
  target_id: z.string(),
  attempts: z.number(),
});
type Job = z.infer<typeof job>;

/** What an evaluator gets when its mapping names nothing else: OpenInference's input, output and metadata. */
const DEFAULT_PATHS: Record<EvaluationTarget, Record<string, string>> = {
  SPAN: { input: 'attributes.input.value', output: 'attributes.output.value', metadata: 'attributes.metadata' },
  TRACE: { input: 'attributes.input.value', output: 'attributes.output.value', metadata: 'attributes.metadata' },
  SESSION: { input: 'input', output: 'output' },
};

/** An experiment run's arguments by default: the example's input, expected output and metadata, the run's output. */
const RUN_PATHS: Record<string, string> = { input: 'input', output: 'output', expected: 'expected', metadata: 'metadata' };

const ANNOTATION_TARGET: Record<EvaluationTarget, AnnotationTarget> = { SPAN: 'span', TRACE: 'trace', SESSION: 'session' };

/**
 * Online evaluation, the doing half: a lane of its own beside the reactors, so a slow judge never
 * holds up ingest, a read model or another reactor. It claims due jobs (`evaluation_jobs`, FOR
 * UPDATE SKIP LOCKED with a lease, so replicas share the queue), judges each with its evaluator's
 * current version, and records the outcome on the evaluation's own stream, which takes one outcome
 * only: a job handed out twice (a crash after the append, a takeover) finds its outcome and leaves.
 * Refusals worth retrying wait a doubling pause; a failure after the last try, or one no retry can
 * mend (code that throws or runs out of time), is recorded as `EvaluationFailed`.
 */
export const createEvaluationWorker = (options: EvaluationWorkerOptions): EvaluationWorker => {
  const { store, pool, ports, logger } = options;
  const concurrency = options.concurrency ?? 8;
  const perEvaluator = options.perEvaluatorConcurrency ?? 4;
  const perMinute = options.perEvaluatorPerMinute ?? 600;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const idleMs = options.idleMs ?? 200;
  const inFlight = new Set<Promise<void>>();
  const busy = new Map<number, number>();
  const started = new Map<number, number[]>();
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;

  const claim = async (n: number): Promise<Job[]> => [
    ...(await pool.any(sql.type(job)`
        UPDATE evaluation_jobs j SET claimed_until = now() + interval '5 minutes'
        FROM (SELECT attachment_id, target, target_id FROM evaluation_jobs
              WHERE due_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
              ORDER BY due_at LIMIT ${n} FOR UPDATE SKIP LOCKED) c
        WHERE j.attachment_id = c.attachment_id AND j.target = c.target AND j.target_id = c.target_id
        RETURNING j.attachment_id, j.target, j.target_id, j.attempts`)),
  ];

  const done = (j: Job) =>
    pool.query(
      sql.unsafe`DELETE FROM evaluation_jobs WHERE attachment_id = ${j.attachment_id} AND target = ${j.target} AND target_id = ${j.target_id}`,
    );

  const later = (j: Job, error: string, attempts: number, ms: number) =>
    pool.query(sql.unsafe`
      UPDATE evaluation_jobs SET attempts = ${attempts}, last_error = ${error.slice(0, 2000)}, claimed_until = NULL,
        due_at = now() + make_interval(secs => ${ms / 1000})
      WHERE attachment_id = ${j.attachment_id} AND target = ${j.target} AND target_id = ${j.target_id}`);

  /** Whether the evaluator may start one more now (its concurrency and its rate over the last minute). */
  const mayStart = (evaluatorId: number): boolean => {
    if ((busy.get(evaluatorId) ?? 0) >= perEvaluator) return false;
    const recent = (started.get(evaluatorId) ?? []).filter((t) => t > Date.now() - 60_000);
    started.set(evaluatorId, recent);
    return recent.length < perMinute;
  };

  /** What a job judges: its evaluator, where its arguments come from, and how its outcome is recorded. */
  type Work = {
    readonly evaluator: EvaluatorRow;
    readonly owner: string;
    readonly subject: JsonObject;
    readonly defaults: Readonly<Record<string, string>>;
    readonly mapping: { readonly pathMapping: Readonly<Record<string, string>>; readonly literalMapping: JsonObject };
    readonly name: string;
    readonly verdict: (result: Verdict, times: { start: string; end: string }) => RecordEvaluationOutcome;
    readonly failure: (failure: EvaluationFailed['data'], times: { start: string; end: string }) => RecordEvaluationOutcome;
  };

  const mappingOf = (m: { pathMapping: Record<string, string>; literalMapping: Record<string, unknown> }) => ({
    pathMapping: m.pathMapping,
    literalMapping: m.literalMapping as JsonObject,
  });

  /** A span, trace or session for a project evaluator: the verdict an annotation. Null when there is nothing to judge any more. */
  const targetWork = async (j: Job): Promise<Work | null> => {
    const attachment = await findProjectEvaluator(pool, j.attachment_id);
    const evaluator = attachment && (await findEvaluator(pool, { id: attachment.evaluator_id }));
    if (!attachment || !evaluator || !attachment.enabled) return null;
    const target = j.target as EvaluationTarget;
    const subject = await evaluationSubject(pool, target, j.target_id);
    if (subject === null) return null; // deleted or expired meanwhile
    const name = attachment.annotation_name ?? evaluator.name;
    const kind: AnnotatorKind = (evaluator.definition as unknown as EvaluatorDefinition).kind === 'LLM' ? 'LLM' : 'CODE';
    return {
      evaluator,
      owner: attachment.project_id,
      subject: { ...subject },
      defaults: DEFAULT_PATHS[target],
      mapping: mappingOf(attachment.input_mapping),
      name,
      verdict: (v) => ({
        type: 'RecordEvaluationVerdict',
        annotation: {
          target: ANNOTATION_TARGET[target],
          targetId: j.target_id,
          documentPosition: null,
          name,
          annotatorKind: kind,
          label: v.label,
          score: v.score,
          explanation: v.explanation,
          metadata: { evaluator_id: evaluator.id, evaluator_version: evaluator.version, project_evaluator_id: attachment.id },
          identifier: '',
        },
      }),
      failure: (failure) => ({ type: 'RecordEvaluationFailure', ...failure }),
    };
  };

  /** An experiment run for a dataset evaluator: the verdict (or the failure) an experiment evaluation of the run. */
  const runWork = async (j: Job): Promise<Work | null> => {
    const attachment = await findDatasetEvaluator(pool, j.attachment_id);
    const evaluator = attachment && (await findEvaluator(pool, { id: attachment.evaluator_id }));
    const run = attachment && (await runEvaluationSubject(pool, j.target_id));
    if (!attachment || !evaluator || !run) return null;
    const name = attachment.annotation_name ?? evaluator.name;
    const kind: AnnotatorKind = (evaluator.definition as unknown as EvaluatorDefinition).kind === 'LLM' ? 'LLM' : 'CODE';
    const evaluation = (times: { start: string; end: string }) => ({
      experimentId: run.experimentId,
      runId: j.target_id,
      name,
      annotatorKind: kind,
      traceId: null,
      startTime: times.start,
      endTime: times.end,
      metadata: { evaluator_id: evaluator.id, evaluator_version: evaluator.version, dataset_evaluator_id: attachment.id },
    });
    return {
      evaluator,
      owner: attachment.dataset_id,
      subject: run.subject,
      defaults: RUN_PATHS,
      mapping: mappingOf(attachment.input_mapping),
      name,
      verdict: (v, times) => ({
        type: 'RecordRunEvaluation',
        evaluation: { ...evaluation(times), label: v.label, score: v.score, explanation: v.explanation, error: null },
        failure: null,
      }),
      failure: (failure, times) => ({
        type: 'RecordRunEvaluation',
        evaluation: { ...evaluation(times), label: null, score: null, explanation: null, error: failure.error },
        failure,
      }),
    };
  };

  const judge = async (j: Job): Promise<void> => {
    const work = j.target === 'RUN' ? await runWork(j) : await targetWork(j);
    if (work === null) return void (await done(j));
    const { evaluator } = work;
    const key = {
      attachmentId: j.attachment_id,
      evaluatorId: evaluator.id,
      version: evaluator.version,
      target: j.target,
      targetId: j.target_id,
    };
    if (await hasEvaluationOutcome(store, key)) return void (await done(j));
    if (!mayStart(evaluator.id)) return void (await later(j, 'waiting for the rate limit', j.attempts, 1000));
    busy.set(evaluator.id, (busy.get(evaluator.id) ?? 0) + 1);
    started.get(evaluator.id)?.push(Date.now()) ?? started.set(evaluator.id, [Date.now()]);
    let result: EvaluationResult;
    const start = new Date().toISOString();
    try {
      const args = { ...mappedArguments(work.subject, work.defaults, work.mapping), span: work.subject };
      result = await runEvaluator(evaluator.definition as unknown as EvaluatorDefinition, args, ports);
    } catch (error) {
      result = { ok: false, error: `evaluation failed: ${(error as Error).message}`, retryable: true };
    } finally {
      busy.set(evaluator.id, (busy.get(evaluator.id) ?? 1) - 1);
    }
    const times = { start, end: new Date().toISOString() };
    const attempts = j.attempts + 1;
    if (result.ok) await recordEvaluationOutcome(store, key, work.verdict(result.verdict, times));
    else if (result.retryable && attempts < maxAttempts)
      return void (await later(j, result.error, attempts, Math.min(60_000, retryBaseMs * 2 ** (attempts - 1))));
    else
      await recordEvaluationOutcome(
        store,
        key,
        work.failure({ ...key, target: j.target, projectId: work.owner, error: result.error, attempts }, times),
      );
    await done(j);
  };

  const run = (j: Job) => {
    const p = judge(j)
      .catch(async (error: unknown) => {
        // The database or the log refused: the job is tried again after its lease (nothing was recorded).
        logger?.warn({ err: error, target: j.target_id }, 'evaluation not recorded; tried again later');
        await later(j, String((error as Error).message ?? error), j.attempts, retryBaseMs).catch(() => undefined);
      })
      .finally(() => {
        inFlight.delete(p);
        wake?.();
      });
    inFlight.add(p);
  };

  const loop = async () => {
    while (running) {
      const free = concurrency - inFlight.size;
      const jobs = free > 0 ? await claim(free).catch(() => []) : [];
      for (const j of jobs) run(j);
      if (jobs.length > 0 && jobs.length === free) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idleMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      wake?.();
      await loopDone;
      await Promise.all(inFlight);
    },
  };
};
