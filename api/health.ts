import { sql } from 'slonik';
import { describeStop } from '../projections/projectionStop.ts';
import type { AppDeps } from './appDeps.ts';
import type { RouteDef } from './http/route.ts';

/** Beyond this many events behind the log head, the server reports itself not ready. */
const MAX_READY_LAG = 10_000;

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
      const databaseUp = await deps.pool.oneFirst(sql.unsafe`SELECT 1`).then(
        () => true,
        () => false,
      );
      if (!databaseUp) problems.push('database unreachable');
      try {
        // Stopped read models are reported below, not counted as lag.
        const { events } = await deps.store.backlog(deps.runner.position(), { cap: MAX_READY_LAG + 1 });
        lag = String(events);
        if (events > MAX_READY_LAG) problems.push(`projections are ${events} events behind`);
      } catch (error) {
        // The log lives in the database, or in EventStoreDB: say which failed.
        if (databaseUp) problems.push(`event log unreachable: ${String((error as Error).message ?? error).split('\n')[0]}`);
      }
      const failing = deps.runner.lastError();
      if (failing) problems.push(`projection runner failing (retrying): ${failing.message}`);
      // A read model stopped at an event it cannot apply is named here, but does not make this
      // process unready: every process stops at the same event, so a load balancer pulling them
      // all would stop ingest and every other read model too. Operators act on `degraded`.
      const stopped = deps.runner.projections().flatMap((p) => (p.stop ? [p.stop] : []));
      ctx.status = problems.length ? 503 : 200;
      ctx.body = {
        status: problems.length ? 'unavailable' : stopped.length ? 'degraded' : 'ok',
        problems,
        degraded: stopped.map(describeStop),
        stoppedProjections: stopped,
        projectionLag: lag,
        // Per read model, sampled every second: events not applied yet and the age of the oldest of them.
        projections: deps.lag?.current() ?? [],
        // Which process applies each read model (several processes may share one PostgreSQL database).
        owners: deps.runner.projections().map((p) => ({ name: p.name, owner: p.owner, here: p.ownedHere })),
      };
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
