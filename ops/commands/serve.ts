import { redactConfig } from '../config.ts';
import { buildServer } from '../buildServer.ts';
import { startBanner } from '../startBanner.ts';
import type { CommandRun } from './command.ts';

/** `loupe serve`: runs until SIGTERM/SIGINT, then drains and exits 0. */
export const run: CommandRun = async (config) => {
  const started = Date.now();
  const server = await buildServer(config);
  // The whole configuration is for someone debugging a deployment, not for every start.
  server.logger.debug({ config: redactConfig(config), database: server.database.description }, 'configuration');
  server.logger.info({ ports: server.ports, ms: Date.now() - started }, 'listening');
  process.stdout.write(
    startBanner({ config, url: server.url, ports: server.ports, database: server.database.description, eventLog: server.eventLog }),
  );
  const shutdown = (signal: string) => {
    server.logger.info({ signal }, 'shutting down: draining in-flight requests');
    void server.stop().then(() => {
      server.logger.info('stopped');
      process.exit(0);
    });
  };
  // Embedded PGlite's worker thread died (out of memory, say): every query would fail from now on,
  // while /healthz still answered. Stop instead, so a supervisor starts a whole server again.
  void server.database.lost?.then((error) => {
    server.logger.fatal({ err: error }, 'embedded database lost: stopping');
    void server.stop().finally(() => process.exit(1));
  });
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
};
