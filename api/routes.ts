import type { AppDeps } from './appDeps.ts';
import { authRoutes } from './identity/authRoutes.ts';
import { graphqlRoutes } from './graphql/graphqlRoutes.ts';
import { healthRoutes } from './health.ts';
import type { RouteDef } from './http/route.ts';
import { alertRoutes } from './rest/alerts/alertRoutes.ts';
import { annotationConfigRoutes } from './rest/annotations/annotationConfigRoutes.ts';
import { annotationRoutes } from './rest/annotations/annotationRoutes.ts';
import { apiKeyRoutes } from './rest/apiKeys/apiKeyRoutes.ts';
import { auditRoutes } from './rest/audit/auditRoutes.ts';
import { datasetChangeRoutes } from './rest/datasets/datasetChangeRoutes.ts';
import { datasetExportRoutes } from './rest/datasets/datasetExportRoutes.ts';
import { datasetLabelRoutes } from './rest/datasets/datasetLabelRoutes.ts';
import { datasetRoutes } from './rest/datasets/datasetRoutes.ts';
import { datasetEvaluatorRoutes } from './rest/evaluators/datasetEvaluatorRoutes.ts';
import { evaluatorRoutes } from './rest/evaluators/evaluatorRoutes.ts';
import { projectEvaluatorRoutes } from './rest/evaluators/projectEvaluatorRoutes.ts';
import { experimentRoutes } from './rest/experiments/experimentRoutes.ts';
import { projectRoutes } from './rest/projects/projectRoutes.ts';
import { promptRoutes } from './rest/prompts/promptRoutes.ts';
import { playgroundRoutes } from './rest/playground/playgroundRoutes.ts';
import { priceRoutes } from './rest/prices/priceRoutes.ts';
import { traceRetentionPolicyRoutes } from './rest/retention/traceRetentionPolicyRoutes.ts';
import { secretRoutes } from './rest/secrets/secretRoutes.ts';
import { sessionRoutes } from './rest/tracing/sessionRoutes.ts';
import { spanRoutes } from './rest/tracing/spanRoutes.ts';
import { traceRoutes } from './rest/tracing/traceRoutes.ts';
import { traceUserRoutes } from './rest/tracing/traceUserRoutes.ts';
import { userRoutes } from './rest/identity/userRoutes.ts';

/** Every route the server serves. Each feature adds its module here (one line). */
export const allRoutes = (deps: AppDeps): RouteDef[] => [
  ...healthRoutes(deps),
  ...authRoutes(deps),
  ...userRoutes(deps),
  ...apiKeyRoutes(deps),
  ...secretRoutes(deps),
  ...priceRoutes(deps),
  ...projectRoutes(deps),
  ...traceRetentionPolicyRoutes(deps),
  ...alertRoutes(deps),
  ...spanRoutes(deps),
  ...traceRoutes(deps),
  ...sessionRoutes(deps),
  ...traceUserRoutes(deps),
  ...annotationRoutes(deps),
  ...annotationConfigRoutes(deps),
  ...promptRoutes(deps),
  ...datasetRoutes(deps),
  ...datasetChangeRoutes(deps),
  ...datasetExportRoutes(deps),
  ...datasetLabelRoutes(deps),
  ...experimentRoutes(deps),
  ...playgroundRoutes(deps),
  ...evaluatorRoutes(deps),
  ...projectEvaluatorRoutes(deps),
  ...datasetEvaluatorRoutes(deps),
  ...auditRoutes(deps),
  ...graphqlRoutes(deps),
];
