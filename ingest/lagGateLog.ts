import type { Logger } from 'pino';

/**
 * The lag gate's log lines: one when it closes and one when it opens again, but at most one close
 * a minute. With a bound of a few seconds the gate closes and opens about once a second under
 * sustained ingest (BENCHMARKS.md §13), and a line per flip would bury everything else; the line
 * after a quiet period says how often it closed meanwhile (the metrics count every held and
 * refused request).
 */
export const logGateChanges = (
  logger: Pick<Logger, 'warn' | 'info'>,
  options: { readonly quietMs?: number; readonly now?: () => number } = {},
): ((closed: boolean, lagSeconds: number) => void) => {
  const quietMs = options.quietMs ?? 60_000;
  const now = options.now ?? Date.now;
  let lastLogged: number | null = null;
  let unlogged = 0;
  let closeLogged = false;
  return (closed, lagSeconds) => {
    if (!closed) {
      if (closeLogged) logger.info({ lagSeconds }, 'projections caught up: accepting exports again');
      closeLogged = false;
      return;
    }
    const at = now();
    if (lastLogged !== null && at - lastLogged < quietMs) {
      unlogged++;
      return;
    }
    logger.warn(
      { lagSeconds, closedUnloggedTimes: unlogged },
      `projections trail ingest by ${lagSeconds.toFixed(1)} s: holding, then refusing, exports until they catch up (SERVICE_OTLP_MAX_PROJECTION_LAG_SECONDS)` +
        (unlogged > 0 ? `; closed ${unlogged} more times since the last such line` : ''),
    );
    lastLogged = at;
    unlogged = 0;
    closeLogged = true;
  };
};
