import { alertsProjection } from './alerts/alertsProjection.ts';
import { annotationsProjection } from './annotations/annotationsProjection.ts';
import { apiKeysProjection } from './apiKeys/apiKeysProjection.ts';
import { auditTrailProjection } from './audit/auditTrailProjection.ts';
import { datasetsProjection } from './datasets/datasetsProjection.ts';
import { evaluatorsProjection } from './evaluators/evaluatorsProjection.ts';
import { experimentsProjection } from './experiments/experimentsProjection.ts';
import { usersProjection } from './identity/usersProjection.ts';
import type { Projection } from './projection.ts';
import { promptsProjection } from './prompts/promptsProjection.ts';
import { traceRetentionPoliciesProjection } from './retention/traceRetentionPoliciesProjection.ts';
import { savedFiltersProjection } from './savedFilters/savedFiltersProjection.ts';
import { secretsProjection } from './secrets/secretsProjection.ts';
import { tracingPartitions } from './tracing/tracingProjection.ts';

/**
 * Every read model the server keeps, in the order their migrations apply. Each declares the events
 * it reads itself. The tracing read model comes as `tracingPartitionCount` partitions
 * (SERVICE_TRACING_PARTITIONS): `tracing`, `tracing.1`, … (their migrations are partition 0's).
 */
export const allProjections = (tracingPartitionCount = 1): Projection[] => [
  usersProjection,
  apiKeysProjection,
  secretsProjection,
  ...tracingPartitions(tracingPartitionCount),
  annotationsProjection,
  promptsProjection,
  datasetsProjection,
  experimentsProjection,
  savedFiltersProjection,
  traceRetentionPoliciesProjection,
  alertsProjection,
  evaluatorsProjection,
  auditTrailProjection,
];
