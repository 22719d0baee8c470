/**
 * The Node flags that run our TypeScript: the loader ops/tsLoader.mjs (its top comment says why
 * it replaced tsx and why require(esm) is off). Every place that starts a Node process on a `.ts`
 * file spawns it with these (the test runner, the CLI tests, the benchmarks); package.json's
 * scripts and bin/loupe.js spell the same flags out.
 */
export const TYPESCRIPT_NODE_FLAGS: readonly string[] = [
  '--no-experimental-require-module',
  '--import',
  new URL('./tsLoader.mjs', import.meta.url).href,
];
