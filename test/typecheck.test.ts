import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/** The code is `strict` TypeScript, but our loader (esbuild) only strips types: this is where they are checked. */
test('the whole project typechecks under tsc --noEmit', () => {
  const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname;
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', new URL('..', import.meta.url).pathname], { encoding: 'utf8' });
  assert.is(result.status, 0, result.stdout + result.stderr);
});

/** tsc does not read `.svelte` files; svelte-check types the UI's components and their markup. */
test('the UI typechecks under svelte-check', () => {
  const bin = new URL('../node_modules/svelte-check/bin/svelte-check', import.meta.url).pathname;
  const tsconfig = new URL('../ui/tsconfig.json', import.meta.url).pathname;
  const result = spawnSync(process.execPath, [bin, '--tsconfig', tsconfig, '--threshold', 'error', '--output', 'human'], {
    encoding: 'utf8',
  });
  assert.is(result.status, 0, result.stdout + result.stderr);
});

test.run();
