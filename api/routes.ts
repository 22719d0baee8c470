import type { AppDeps } from './appDeps.ts';
import { authRoutes } from './auth/authRoutes.ts';
import { healthRoutes } from './health.ts';
import type { RouteDef } from './http/route.ts';
import { apiKeyRoutes } from './rest/apiKeys.ts';
import { projectRoutes } from './rest/projects.ts';
import { secretRoutes } from './rest/secrets.ts';
import { sessionRoutes } from './rest/sessions.ts';
import { spanRoutes } from './rest/spans.ts';
import { traceRoutes } from './rest/traces.ts';
import { userRoutes } from './rest/users.ts';

/** Every route the server serves. Each feature adds its module here (one line). */
export const allRoutes = (deps: AppDeps): RouteDef[] => [
  ...healthRoutes(deps),
  ...authRoutes(deps),
  ...userRoutes(deps),
  ...apiKeyRoutes(deps),
  ...secretRoutes(deps),
  ...projectRoutes(deps),
  ...spanRoutes(deps),
  ...traceRoutes(deps),
  ...sessionRoutes(deps),
];
