import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../ops/config.ts';

/** What startup validation says of `env`: one line per problem, [] when the configuration loads. */
export const configProblems = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.split('\n');
  }
};

/** Asserts one of `problems` starts with `start` (each names its variable first). */
export const hasProblem = (problems: readonly string[], start: string): void =>
  assert.ok(
    problems.some((p) => p.startsWith(start)),
    `expected a problem starting with ${JSON.stringify(start)} in:\n${problems.join('\n')}`,
  );
