// Runs our TypeScript on Node: `node --no-experimental-require-module --import ./ops/tsLoader.mjs
// file.ts` (the scripts in package.json, bin/loupe.js and the test runner all start Node so).
//
// Hooks run in the loading thread (module.registerHooks), and only our own `.ts` files are
// touched: resolution is Node's (our imports name their `.ts` files), each file is transformed by
// esbuild once (decorators included, which Node's own type stripping refuses) and then read from a
// cache keyed by its content. tsx, which this replaced, sent every import of a process (~2,000 for
// the server, node_modules included) across threads to its resolve and load hooks and kept a second
// V8 isolate for them: importing the server took 2.2–2.7 CPU-s and ~270 MB, here 1.5–1.7 CPU-s and
// ~210 MB (BENCHMARKS.md §11).
//
// --no-experimental-require-module: Node 24.9 fails with "module is not linked" when a package's
// require() of an ES module (the "module-sync" export condition: async-function, required by
// get-intrinsic) runs while any module hooks are registered. Without require(esm) those packages
// give require() their CommonJS build, as on Node 20.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync, version } from 'esbuild';

if (process.features.require_module) {
  throw new Error('ops/tsLoader.mjs needs `node --no-experimental-require-module` (see the comment at its top)');
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'loupe-ts');
const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'node22',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { experimentalDecorators: true } },
};
/** Part of every cache key: a new esbuild or new options compile everything again. */
const SALT = `${version}:${JSON.stringify(OPTIONS)}`;
const OURS = /^file:\/\/(?!.*\/node_modules\/).*\.m?ts$/;

const compile = (path) => {
  const source = readFileSync(path, 'utf8');
  const key = createHash('sha1').update(SALT).update(path).update('\0').update(source).digest('hex');
  const cached = join(CACHE, key.slice(0, 2), `${key}.js`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    const { code } = transformSync(source, { ...OPTIONS, sourcefile: path });
    // Written aside, then renamed: parallel processes may compile the same file at once.
    mkdirSync(dirname(cached), { recursive: true });
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
    return code;
  }
};

// A worker thread imports this file again (its hooks are per thread); one registration each.
const REGISTERED = Symbol.for('loupe.tsLoader');
if (!globalThis[REGISTERED]) {
  globalThis[REGISTERED] = true;
  // Stack traces name the TypeScript lines.
  process.setSourceMapsEnabled(true);
  registerHooks({
    load(url, context, nextLoad) {
      if (!OURS.test(url)) return nextLoad(url, context);
      return { format: 'module', source: compile(fileURLToPath(url)), shortCircuit: true };
    },
  });
}
