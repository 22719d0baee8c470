import type { Config } from '../config.ts';

/**
 * What every `ops/commands/<name>.ts` exports. `args` are the words after the subcommand, already
 * checked against the options the CLI declares for it (re-parse them with node:util parseArgs).
 *
 * Resolve with a number when the command is finished: the CLI flushes output and exits with it.
 * Resolve with nothing when the command keeps running on its own handles (serve): the process then
 * lives until those close, with exit code 0 unless the command sets another.
 */
export type CommandRun = (config: Config, args: string[]) => Promise<number | void>;

export interface CommandModule {
  readonly run: CommandRun;
}
