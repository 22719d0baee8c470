import { restPermission } from '../../domain/access/restPermission.ts';
import type { RouteDef } from '../http/route.ts';
import type { Metrics } from './metrics.ts';

/**
 * `GET /metrics` in Prometheus text format. Permission `read`, not `public`: the numbers carry no
 * span data, but ingest volume, route timings and read model names describe the deployment, and a
 * Prometheus scrape job can send a (system) API key as a bearer token. With auth off it is open,
 * like every read route. /healthz and /readyz stay public because load balancers cannot sign in.
 */
export const metricsRoutes = (metrics: Metrics): RouteDef[] => [
  {
    method: 'GET',
    path: '/metrics',
    permission: restPermission('GET', '/metrics'),
    handler: async (ctx) => {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    },
  },
];
