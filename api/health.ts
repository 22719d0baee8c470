import { sql } from 'slonik';
import type { AppDeps } from './appDeps.ts';
import type { RouteDef } from './http/route.ts';

/** Beyond this many events behind the log head, the server reports itself not ready. */
const MAX_READY_LAG = 10_000n;

export const healthRoutes = (deps: AppDeps): RouteDef[] => [
  {
    method: 'GET',
    path: '/healthz',
    permission: 'public',
    handler: (ctx) => {
      ctx.body = { status: 'ok' };
    },
  },
  {
    method: 'GET',
    path: '/readyz',
    permission: 'public',
    handler: async (ctx) => {
      const problems: string[] = [];
      let lag: string | null = null;
      if (deps.isDraining()) problems.push('shutting down');
      try {
        await deps.pool.oneFirst(sql.unsafe`SELECT 1`);
        const head = await deps.store.headPosition();
        const behind = head.seq - deps.runner.position().seq;
        lag = (behind > 0n ? behind : 0n).toString();
        if (behind > MAX_READY_LAG) problems.push(`projections are ${behind} events behind`);
      } catch {
        problems.push('database unreachable');
      }
      if (deps.runner.lastError()) problems.push('projection runner failing');
      ctx.status = problems.length ? 503 : 200;
      ctx.body = { status: problems.length ? 'unavailable' : 'ok', problems, projectionLag: lag };
    },
  },
  {
    method: 'GET',
    path: '/arize_phoenix_version',
    permission: 'public',
    handler: (ctx) => {
      ctx.type = 'text/plain';
      ctx.body = deps.settings.serverVersion;
    },
  },
];
