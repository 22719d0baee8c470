import type { Logger } from 'pino';
import { createAlertSender } from '../adapters/outbound/alertSender.ts';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { deriveAuditKey } from '../domain/audit/auditKey.ts';
import type { SealInputSource } from '../domain/audit/sealInputSource.ts';
import { createSealer } from '../projections/audit/createSealer.ts';
import { sealerReactor } from '../projections/audit/sealerReactor.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { SecretKeyring } from '../domain/secrets/crypto.ts';
import { alertDeliveryReactor } from '../projections/alerts/alertDeliveryReactor.ts';
import { alertEvaluationReactor } from '../projections/alerts/alertEvaluationReactor.ts';
import type { ModelClient } from '../domain/modelCalls/modelCall.ts';
import type { AnyReactor } from '../projections/reactors/reactor.ts';
import { erasureReactor } from '../projections/retention/erasureReactor.ts';
import { retentionReactor } from '../projections/retention/retentionReactor.ts';
import { costReactor } from '../projections/prices/costReactor.ts';
import { evaluationReactor } from '../projections/evaluators/evaluationReactor.ts';
import { evaluationJudgingReactor } from '../projections/evaluators/evaluationJudgingReactor.ts';
import type { CodeSandbox } from '../domain/evaluators/codeSandbox.ts';
import { createLlmJudge } from '../domain/evaluators/llmJudge.ts';
import type { Config } from './config.ts';
import { checkpoint } from './database/walCheckpoints.ts';

export type ReactorDeps = {
  readonly config: Config;
  readonly store: EventStore;
  readonly pool: DatabasePool;
  /** What the sealer reads of the configured log (ops/createConfiguredEventStore.ts). */
  readonly sealInputs: (db: CommonQueryMethods) => SealInputSource;
  /** PGlite: one session for everything, so a reactor's long statements delay every other query. */
  readonly embedded: boolean;
  readonly logger: Logger;
  /** Opens alert webhooks' sealed secrets to sign with. */
  readonly keyring: SecretKeyring;
  /** The server's address as people reach it (`SERVICE_ROOT_URL`, else the listening address): links in notifications. */
  readonly publicUrl: () => string;
  /** The model port (adapters/outbound/modelClient.ts), for reactors that call a model (an evaluator's judge). */
  readonly models: ModelClient;
  /** Where evaluator code runs (domain/evaluators/codeSandbox.ts). */
  readonly sandbox: CodeSandbox;
};

/** Alert rules are evaluated, and due notifications attempted, every second (a rule's own interval decides whether it is due). */
const ALERT_TICK_MS = 1000;

/**
 * Every reactor and background job the server runs (projections/reactors/reactor.ts), built from
 * the configuration, each on a lane of its own. Each lives in its feature's folder
 * (`projections/<feature>/<x>Reactor.ts`); this is the one list, as `projections/allProjections.ts`
 * is for read models. Reactors proper (erasure, retention) decide in `domain/` and append through
 * commands; background jobs (the audit sealer, cost repricing) only write tables.
 */
export const createReactors = (deps: ReactorDeps): AnyReactor[] => [
  // Trails the append (never on its path); on PGlite its batches are kept small (docs/AUDIT.md).
  sealerReactor({
    sealer: createSealer({
      pool: deps.pool,
      key: deriveAuditKey(deps.config.audit.secret),
      source: deps.sealInputs,
      maxBytes: deps.embedded ? 4 * 1024 * 1024 : undefined,
    }),
    logger: deps.logger,
  }),
  // Deletions reach the log; on PGlite an erasure also rewrites the read models' files (vacuumAfterErasure.ts),
  // and every removal ends with a checkpoint, which PGlite never runs by itself (walCheckpoints.ts).
  erasureReactor({
    store: deps.store,
    pool: deps.pool,
    fullVacuum: deps.embedded,
    afterVacuum: deps.embedded ? () => checkpoint(deps.pool) : undefined,
  }),
  // Prices changed after the spans they price were stored: repriced in the background.
  costReactor({ pool: deps.pool }),
  // Alert rules: evaluated on the metrics' tables, and each transition's notifications sent (projections/alerts/).
  alertEvaluationReactor({ store: deps.store, pool: deps.pool, tickMs: ALERT_TICK_MS }),
  alertDeliveryReactor({
    pool: deps.pool,
    keyring: deps.keyring,
    send: createAlertSender(deps.config.alerts.allowedUrls),
    projectLink: (rowid) => `${deps.publicUrl()}/projects/${Buffer.from(`Project:${rowid}`).toString('base64')}/metrics`,
    tickMs: ALERT_TICK_MS,
  }),
  retentionReactor({
    store: deps.store,
    days: deps.config.retention.defaultDays,
    everyMs: deps.config.retention.scheduleMinutes * 60_000,
  }),
  // Online evaluation: new spans, traces and sessions a project evaluator picks, queued for its judging lane.
  evaluationReactor({ pool: deps.pool }),
  // ... and judged, each once, on this lane (a judge taking seconds holds up no other lane).
  evaluationJudgingReactor({
    store: deps.store,
    pool: deps.pool,
    ports: { sandbox: deps.sandbox, llm: createLlmJudge(deps.models) },
    logger: deps.logger,
  }),
];
