/**
 * Runs every `test/**\/*.test.ts` (uvu) file in its own Node process, a few at a time, so a crash,
 * a leaked handle or a hang in one file cannot hide the others. The last line printed is always
 * `N passed, N failed`; the exit code is 1 when anything failed.
 *
 *   npm test -- [--jobs N] [--timeout SECONDS] [--skip PATTERN ...] [--only-backend-dependent] [--list] [path | pattern ...]
 *
 * A path (file or folder) selects the test files under it; any other argument is a regular
 * expression matched against the file's path relative to the repository. `--skip` leaves out the
 * files whose path matches (CI runs what does not depend on the database backend in one of its
 * two runs only: the code rules on PGlite, the browser flows on PostgreSQL; see .ci/run).
 * `--only-backend-dependent` leaves out the files that do not reach the database or log backend
 * CI selects (ops/testBackendUse.ts): CI's second and third runs, which differ from the first in
 * the backend only, run just the files whose outcome that can change. `--list` prints the files
 * selected, in the order they would start, and runs none.
 * Before starting, the Debian packages the selected files need are checked (ensureSystemPackages.ts):
 * installed when running as root, named with the command to run otherwise.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureSystemPackages } from './ensureSystemPackages.ts';
import { createBackendUse } from './testBackendUse.ts';
import { TYPESCRIPT_NODE_FLAGS } from './typescriptNodeFlags.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TEST_DIR = join(ROOT, 'test');
const TEST_FILE = /\.test\.ts$/;
/** How long a file may keep running after uvu printed its summary (a leaked handle). */
const AFTER_SUMMARY_GRACE_MS = 5_000;
/** Between SIGTERM and SIGKILL when a file must be stopped. */
const KILL_GRACE_MS = 3_000;

interface Outcome {
  readonly file: string;
  readonly passed: number;
  readonly failed: number;
  readonly output: string;
  readonly seconds: number;
  /** CPU seconds (user + system) of the file's process and the processes it waited for; null off Linux. */
  readonly cpuSeconds: number | null;
  /** Why the runner counted something that uvu did not, or stopped the process. */
  readonly notes: string[];
  /** The runtime itself died (a V8 abort or a fatal signal), as opposed to a test failing. */
  readonly nativeCrash: boolean;
}

const usage = `usage: npm test -- [--jobs N] [--timeout SECONDS] [--skip PATTERN ...] [--only-backend-dependent] [--list] [path | pattern ...]`;

const parseCli = () => {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      jobs: { type: 'string', short: 'j', default: '3' },
      timeout: { type: 'string', short: 't', default: '180' },
      help: { type: 'boolean', short: 'h', default: false },
      skip: { type: 'string', multiple: true, default: [] },
      'only-backend-dependent': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
    },
  });
  const jobs = Number(values.jobs);
  const timeout = Number(values.timeout);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a positive integer (got ${values.jobs})`);
  if (!(timeout > 0)) throw new Error(`--timeout must be a positive number of seconds (got ${values.timeout})`);
  return {
    help: values.help,
    jobs,
    timeoutMs: timeout * 1000,
    selectors: positionals,
    skip: values.skip!.map(toPattern),
    onlyBackendDependent: values['only-backend-dependent']!,
    list: values.list!,
  };
};

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.isFile() && TEST_FILE.test(entry.name) ? [path] : [];
  });

const toPattern = (selector: string): RegExp => {
  try {
    return new RegExp(selector);
  } catch {
    return new RegExp(selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
};

/** Repository-relative paths with forward slashes, sorted, each once. */
const selectFiles = (selectors: readonly string[]): string[] => {
  const all = existsSync(TEST_DIR) ? walk(TEST_DIR) : [];
  const chosen = new Set<string>();
  if (selectors.length === 0) all.forEach((file) => chosen.add(file));
  for (const selector of selectors) {
    const asPath = resolve(selector);
    if (existsSync(asPath)) {
      if (statSync(asPath).isDirectory()) walk(asPath).forEach((file) => chosen.add(file));
      else chosen.add(asPath);
      continue;
    }
    const pattern = toPattern(selector);
    all.filter((file) => pattern.test(toRelative(file))).forEach((file) => chosen.add(file));
  }
  return [...chosen].map(toRelative).sort();
};

/**
 * The order files start in: the slow kinds first (the type check, browser flows, CLI processes,
 * the code rules), so that no minute-long file starts last and runs alone while the other workers
 * sit idle. The type check is the longest single file of a run (tsc and svelte-check over the
 * tree, all CPU).
 */
const SLOW_FIRST = [/^test\/typecheck\.test\.ts$/, /^test\/e2e\//, /^test\/ops\//, /^test\/architecture\//];
const slowFirst = (files: readonly string[]): string[] => {
  const rank = (file: string) => {
    const i = SLOW_FIRST.findIndex((pattern) => pattern.test(file));
    return i === -1 ? SLOW_FIRST.length : i;
  };
  return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
};

const toRelative = (file: string) => relative(ROOT, file).split(sep).join('/');

// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

const summaryOf = (output: string): { total: number; passed: number } | null => {
  const clean = stripAnsi(output);
  const total = [...clean.matchAll(/^\s*Total:\s+(\d+)/gm)].at(-1)?.[1];
  const passed = [...clean.matchAll(/^\s*Passed:\s+(\d+)/gm)].at(-1)?.[1];
  return total === undefined || passed === undefined ? null : { total: Number(total), passed: Number(passed) };
};

/** Stops the whole process group, so servers a test spawned go too. */
const stopGroup = (pid: number) => {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS).unref();
};

const running = new Set<number>();

/**
 * CPU seconds (user + system) of the children this process has waited for, summed by the kernel
 * (Linux's /proc/self/stat cutime + cstime, in clock ticks of 1/100 s). Read when a file's process
 * is reaped, the increase since the previous reading is that file's CPU time, its browser's and
 * CLI processes' included (not a PostgreSQL server's): unlike wall time, it does not grow when the
 * machine is busy with other work, so it says where CI's time goes on a loaded machine too.
 */
const reapedCpuSeconds = (): number | null => {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
};
let cpuAtLastReap = reapedCpuSeconds();
const cpuSinceLastReap = (): number | null => {
  const now = reapedCpuSeconds();
  const spent = now === null || cpuAtLastReap === null ? null : now - cpuAtLastReap;
  cpuAtLastReap = now;
  return spent;
};

/**
 * Node 24.9's V8 sometimes aborts in its WebAssembly code allocator (`Check failed:
 * jit_page_->allocations_.erase(addr) == 1`) while PGlite's WASM tiers up: a crash of the runtime,
 * not a test's verdict. Such a file runs once more; its second outcome counts, and the report
 * says it crashed first. An assertion failure is never retried.
 */
const NATIVE_CRASH_SIGNALS = new Set(['SIGTRAP', 'SIGSEGV', 'SIGILL', 'SIGABRT', 'SIGBUS']);

/**
 * V8 flags of every test process: `--liftoff-only` keeps PGlite's WebAssembly on the baseline
 * compiler, as the server runs it (ops/serverNodeFlags.ts). A test process is short-lived: TurboFan
 * compiling Postgres' hot functions costs it more CPU than the faster code gives back (measured:
 * 4.0 against 5.3 s CPU for a file starting one server, 5.8 against 6.7 s for five fresh
 * databases; 19.1 against 17.1 s for the one that ingests 50,000 spans) and doubles its memory
 * (0.6 against 1.15 GB RSS). No effect with PostgreSQL (no WebAssembly runs).
 */
const TEST_V8_FLAGS: readonly string[] = ['--liftoff-only'];

/**
 * Node's on-disk cache of compiled JavaScript (keyed by each module's source): every test process
 * imports much the same ~2,000 modules, and reusing their bytecode saves ~15 % of an import's
 * CPU (1.45 → 1.1-1.3 s for buildServer.ts and the test server).
 */
const COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'loupe-node-compile');

const runFile = (file: string, timeoutMs: number): Promise<Outcome> =>
  new Promise((done) => {
    const started = Date.now();
    const notes: string[] = [];
    const chunks: string[] = [];
    const env: NodeJS.ProcessEnv = { NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, NO_COLOR: '1', NODE_DISABLE_COLORS: '1' };
    delete env.FORCE_COLOR;
    const child = spawn(process.execPath, [...TEST_V8_FLAGS, ...TYPESCRIPT_NODE_FLAGS, file], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    let timedOut = false;
    let leaked = false;
    let afterSummary: NodeJS.Timeout | undefined;

    const timer = setTimeout(() => {
      timedOut = true;
      notes.push(`timed out after ${timeoutMs / 1000} s and was killed`);
      if (pid !== undefined) stopGroup(pid);
    }, timeoutMs);

    const collect = (chunk: Buffer) => {
      chunks.push(chunk.toString('utf8'));
      // uvu prints Duration last; a process still alive well after that holds a leaked handle.
      if (afterSummary === undefined && /Duration:/.test(chunks.slice(-2).join(''))) {
        afterSummary = setTimeout(() => {
          leaked = true;
          notes.push(
            `still running ${AFTER_SUMMARY_GRACE_MS / 1000} s after its summary (a leaked handle: server, pool, timer?) and was killed`,
          );
          if (pid !== undefined) stopGroup(pid);
        }, AFTER_SUMMARY_GRACE_MS);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    child.on('error', (error) => chunks.push(`\n[runner] could not start: ${error.message}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(afterSummary);
      if (pid !== undefined) running.delete(pid);
      const cpuSeconds = cpuSinceLastReap();
      const output = chunks.join('');
      const summary = summaryOf(output);
      const passed = summary?.passed ?? 0;
      let failed = summary === null ? 0 : summary.total - summary.passed;
      if (summary === null) notes.push('ended without a uvu summary (crashed, or never called test.run())');
      if (timedOut || (code !== 0 && !leaked && failed === 0)) {
        if (!timedOut && summary !== null) notes.push(`exited with ${signal ?? `code ${code}`} after its summary`);
        failed += 1;
      }
      if (summary === null && !timedOut && failed === 0) failed = 1;
      const nativeCrash = !timedOut && (NATIVE_CRASH_SIGNALS.has(signal ?? '') || /^# Fatal error in /m.test(output));
      done({ file, passed, failed, output, seconds: (Date.now() - started) / 1000, cpuSeconds, notes, nativeCrash });
    });
  });

const report = (outcome: Outcome) => {
  const cpu = outcome.cpuSeconds === null ? '' : `, CPU ${outcome.cpuSeconds.toFixed(1)} s`;
  const counts = `${outcome.passed} passed, ${outcome.failed} failed, ${outcome.seconds.toFixed(1)} s${cpu}`;
  if (outcome.failed === 0) {
    console.log(`ok   ${outcome.file} (${counts})`);
    for (const note of outcome.notes) console.log(`     warning: ${note}`);
    return;
  }
  console.log(`\nFAIL ${outcome.file} (${counts})`);
  console.log('-'.repeat(78));
  process.stdout.write(stripAnsi(outcome.output).replace(/\n*$/, '\n'));
  for (const note of outcome.notes) console.log(`[runner] ${note}`);
  console.log('-'.repeat(78));
};

const main = async (): Promise<number> => {
  let options: ReturnType<typeof parseCli>;
  try {
    options = parseCli();
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    console.log('0 passed, 1 failed');
    return 2;
  }
  if (options.help) {
    console.log(usage);
    return 0;
  }
  const skipped = (file: string) => options.skip.some((pattern) => pattern.test(file));
  const backendDependent = createBackendUse(ROOT);
  const files = selectFiles(options.selectors).filter(
    (file) => !skipped(file) && (!options.onlyBackendDependent || backendDependent(file)),
  );
  if (files.length === 0) {
    console.error(`no test files matched ${options.selectors.join(' ') || 'test/**/*.test.ts'}`);
    console.log('0 passed, 1 failed');
    return 1;
  }

  if (options.list) {
    console.log(slowFirst(files).join('\n'));
    return 0;
  }
  const packagesMissing = ensureSystemPackages(ROOT, files);
  const started = Date.now();
  console.log(`running ${files.length} test file(s), ${options.jobs} at a time, on Node ${process.version}`);
  const outcomes: Outcome[] = [];
  const queue = slowFirst(files);
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      let outcome = await runFile(file, options.timeoutMs);
      if (outcome.nativeCrash) {
        const first = outcome;
        outcome = await runFile(file, options.timeoutMs);
        outcome.notes.unshift(
          `the runtime crashed on the first run (${first.output.match(/^# (Check failed: .*)$/m)?.[1] ?? 'native crash'}); this is the second run`,
        );
      }
      outcomes.push(outcome);
      report(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.jobs, files.length) }, worker));

  const passed = outcomes.reduce((sum, o) => sum + o.passed, 0);
  const failed = outcomes.reduce((sum, o) => sum + o.failed, 0);
  const failing = outcomes.filter((o) => o.failed > 0).map((o) => o.file);
  const cpu = outcomes.every((o) => o.cpuSeconds !== null)
    ? `, CPU ${outcomes.reduce((sum, o) => sum + o.cpuSeconds!, 0).toFixed(0)} s`
    : '';
  console.log(`\n${files.length} file(s) in ${((Date.now() - started) / 1000).toFixed(1)} s${cpu}`);
  if (failing.length > 0) console.log(`failing files:\n${failing.map((f) => `  ${f}`).join('\n')}`);
  if (packagesMissing !== null) console.log(packagesMissing);
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
};

const stopAll = (signal: NodeJS.Signals) => {
  for (const pid of running) stopGroup(pid);
  process.exitCode = signal === 'SIGINT' ? 130 : 143;
  setTimeout(() => process.exit(), KILL_GRACE_MS + 500).unref();
};
process.once('SIGINT', () => stopAll('SIGINT'));
process.once('SIGTERM', () => stopAll('SIGTERM'));

process.exitCode = await main();
