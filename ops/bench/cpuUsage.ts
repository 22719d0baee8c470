import { readFileSync, writeFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** user+system CPU seconds of one process (Linux /proc), 0 if it is gone. */
export const processCpuSeconds = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
};

/** Busy CPU seconds of the whole machine so far (all cores; /proc/stat minus idle and iowait). */
export const machineBusySeconds = (): number => {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (total - idle) / TICKS_PER_SECOND;
};

/**
 * Other sessions' tests share this machine: waits (up to `maxWaitMs`) until the machine has been
 * under `threshold` busy for 3 s in a row. Returns the busy fraction of the last 3 s.
 */
export const waitForQuietMachine = async (maxWaitMs: number, threshold = 0.25, cores = 2): Promise<number> => {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const before = machineBusySeconds();
    await new Promise((r) => setTimeout(r, 3000));
    const busy = (machineBusySeconds() - before) / (3 * cores);
    if (busy < threshold || Date.now() > deadline) return busy;
  }
};

/**
 * CPU seconds used by the Postgres backends serving one database, sampled every 500 ms (a
 * backend's time is kept once seen, so one that exits between samples loses at most 500 ms).
 * `listPids` lists the backend pids (e.g. from pg_stat_activity).
 */
export const startBackendCpuSampler = (listPids: () => Promise<number[]>) => {
  const baseline = new Map<number, number>();
  const latest = new Map<number, number>();
  let first = true;
  let stopped = false;
  const sample = async () => {
    const pids = await listPids().catch(() => [] as number[]);
    for (const pid of pids) {
      const seconds = processCpuSeconds(pid);
      if (seconds === 0) continue;
      if (!baseline.has(pid)) baseline.set(pid, first ? seconds : 0);
      latest.set(pid, seconds);
    }
    first = false;
  };
  const loop = (async () => {
    while (!stopped) {
      await sample();
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    ready: sample(),
    async stop(): Promise<number> {
      stopped = true;
      await loop;
      await sample();
      let total = 0;
      for (const [pid, seconds] of latest) total += seconds - (baseline.get(pid) ?? 0);
      return total;
    },
  };
};

/**
 * Starts a new peak for peakRssBytes (Linux: writing 5 to clear_refs resets VmHWM to the current
 * RSS), so a run's peak is not the start's (PGlite's initdb on an empty directory). False when the
 * kernel refused.
 */
export const resetPeakRss = (pid: number): boolean => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
};

/** Peak resident memory of a live process in bytes (Linux VmHWM), or null. */
export const peakRssBytes = (pid: number): number | null => {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
};
