#!/usr/bin/env node
// Launcher for `npx loupe`: runs ops/cli.ts with our TypeScript loader (ops/tsLoader.mjs) on Node 24, which the
// repository installs as the `node` npm package. The system Node may be older than the code needs.
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const bundledNode = () => {
  try {
    const manifest = createRequire(join(root, 'package.json')).resolve('node/package.json');
    const binary = join(dirname(manifest), 'bin', 'node');
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return null;
  }
};

const currentMajor = Number(process.versions.node.split('.')[0]);
const node = bundledNode() ?? (currentMajor >= MIN_MAJOR ? process.execPath : null);
if (node === null) {
  console.error(`loupe: needs Node ${MIN_MAJOR} or newer (this is ${process.version}) and found no node in node_modules; run npm install`);
  process.exit(1);
}

// Absolute, so the loader is found whatever the current directory is.
const loader = new URL('../ops/tsLoader.mjs', import.meta.url).href;
// The server's V8 heap flags (why: ops/serverNodeFlags.ts), the same list `npm start` and the benchmarks use.
const heapFlags = JSON.parse(readFileSync(join(root, 'ops', 'serverNodeFlags.json'), 'utf8'));
const child = spawn(
  node,
  [...heapFlags, '--no-experimental-require-module', '--import', loader, join(root, 'ops', 'cli.ts'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);

// The child shares the terminal, so Ctrl-C reaches it directly; a signal sent to this process
// alone (a supervisor's SIGTERM) is passed on.
const forwarded = ['SIGTERM', 'SIGINT', 'SIGHUP'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));

child.on('error', (error) => {
  console.error(`loupe: could not start ${node}: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal !== null) {
    for (const name of forwarded) process.removeAllListeners(name);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
