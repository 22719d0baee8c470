import type { Migration } from '../../domain/eventstore/migration.ts';
import { postgresEventStoreMigrations } from '../../domain/eventstore/postgresEventStoreMigrations.ts';
import { checkpointMigrations } from '../../projections/checkpointMigrations.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { reactorMigrations } from '../../projections/reactors/reactorMigrations.ts';
import { alertReactorMigrations } from '../../projections/alerts/alertReactorMigrations.ts';
import { auditMigrations } from '../../projections/audit/auditMigrations.ts';
import { evaluationQueueMigrations } from '../../projections/evaluators/evaluationQueueMigrations.ts';

/** Event log first, then checkpoints (read models', reactors'), then each read model's own migrations in order. */
export const allMigrations = (): Migration[] => [
  ...postgresEventStoreMigrations,
  ...checkpointMigrations,
  ...reactorMigrations,
  ...auditMigrations,
  ...alertReactorMigrations,
  ...evaluationQueueMigrations,
  ...allProjections().flatMap((p) => p.migrations),
];
