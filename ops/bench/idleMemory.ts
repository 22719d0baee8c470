/**
 * Idle memory of the embedded server: `npm run ts -- ops/bench/idleMemory.ts [-- --settle-seconds N]`.
 *
 *   --settle-seconds N   wait this long after start before measuring (default 10)
 *   --node-flag FLAG     extra node/V8 flag for the server (repeatable), e.g. --liftoff-only
 *   --no-heap-flags      without the server's V8 heap flags (ops/serverNodeFlags.ts), to compare
 *   --cpu-seconds N      after the settle, how long to count the idle server's CPU (default 10)
 *
 * Starts `loupe serve` on a fresh embedded PGlite working dir (as an operator would), lets it
 * settle, and prints (for that first start, then for a restart on the same directory) its resident memory (VmRSS from /proc) and, from its own /metrics, how much of
 * that is the JavaScript heap and how much is memory outside it (PGlite's WebAssembly memory is an
 * ArrayBuffer, counted there), and the CPU it spends idle (the processor's loops looking at the
 * log: `idleCpuMsPer10s`). Extra SERVICE_* variables pass through from the environment.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVER_NODE_FLAGS } from '../serverNodeFlags.ts';
import { startServerProcess, passedOnEnvironment } from './serverProcess.ts';

const { values: args } = parseArgs({
  options: {
    'settle-seconds': { type: 'string', default: '10' },
    'node-flag': { type: 'string', multiple: true, default: [] },
    'no-heap-flags': { type: 'boolean', default: false },
    'cpu-seconds': { type: 'string', default: '10' },
  },
});

const statusKb = (pid: number, field: string): number => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
};
/** User + system CPU of a process so far, in ms (/proc/PID/stat, clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const workingDir = await mkdtemp(join(tmpdir(), 'loupe-idle-'));
const passThrough = passedOnEnvironment();
/** One start on `workingDir`: idle memory after the settle time, and the peak during start. */
const measure = async (start: 'fresh' | 'restart') => {
  const server = await startServerProcess({
    env: { ...passThrough, SERVICE_WORKING_DIR: workingDir },
    // A loaded machine (CI beside other jobs) may take minutes to run initdb.
    startTimeoutMs: 300_000,
    nodeFlags: [...(args['no-heap-flags'] ? [] : SERVER_NODE_FLAGS), ...args['node-flag']!],
  });
  try {
    await new Promise((r) => setTimeout(r, Number(args['settle-seconds']) * 1000));
    const cpuSeconds = Number(args['cpu-seconds']);
    const cpuBefore = cpuMs(server.pid);
    await new Promise((r) => setTimeout(r, cpuSeconds * 1000));
    const idleCpuMsPer10s = Math.round(((cpuMs(server.pid) - cpuBefore) * 10) / cpuSeconds);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
    const result = {
      start,
      rss: mb(statusKb(server.pid, 'VmRSS') * 1024),
      peakRss: mb(statusKb(server.pid, 'VmHWM') * 1024),
      heapUsed: mb(metric('nodejs_heap_size_used_bytes')),
      heapTotal: mb(metric('nodejs_heap_size_total_bytes')),
      external: mb(metric('nodejs_external_memory_bytes')),
      idleCpuMsPer10s,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.stop();
  }
};

try {
  // The first start on an empty directory runs initdb (a second Postgres instance for a while);
  // the second is what every later start of the same install costs.
  await measure('fresh');
  await measure('restart');
} finally {
  await rm(workingDir, { recursive: true, force: true });
}
