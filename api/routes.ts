import type { AppDeps } from './appDeps.ts';
import { healthRoutes } from './health.ts';
import type { RouteDef } from './http/route.ts';

/** Every route the server serves. Each feature adds its module here (one line). */
export const allRoutes = (deps: AppDeps): RouteDef[] => [
  ...healthRoutes(deps),
];
