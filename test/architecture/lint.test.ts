import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The linter and the formatter (Biome, configured once in biome.json) over the whole tree, so a
 * file nobody formatted or a rule broken fails `npm test` and CI like any other test. Fix with
 * `npm run format` (safe fixes and formatting), then read what is left with `npm run lint`.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test('biome check passes over the whole tree (lint rules and formatting)', () => {
  const run = spawnSync(join(ROOT, 'node_modules/.bin/biome'), ['check', '--colors=off', '--max-diagnostics=50', '.'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(run.error, undefined, `biome did not run: ${run.error}`);
  assert.ok(run.status === 0, `biome check failed (npm run format fixes formatting and safe fixes):\n${run.stdout}${run.stderr}`);
});

test.run();
