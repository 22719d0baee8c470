import type { CommandRun } from './command.ts';

// Placeholder so the CLI dispatches; the real command replaces this file.
export const run: CommandRun = async () => {
  process.stderr.write('loupe users set-password: not implemented yet\n');
  return 1;
};
