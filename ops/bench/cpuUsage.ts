import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * CPU seconds of every live process whose command name is `name` (e.g. all `postgres` backends).
 * Backends that exit between two samples take their time with them, so compare samples taken
 * while the same connections are open.
 */
export const cpuSecondsByName = (name: string): number => {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === name) total += processCpuSeconds(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
};
