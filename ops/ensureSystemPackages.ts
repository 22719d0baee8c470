/**
 * The Debian packages some test files need beyond npm's, checked before `npm test` starts them:
 * as root, the missing ones are installed through the one script that installs them
 * (ops/installSystemPackages.sh, which .ci/run runs too); without root, the runner names the
 * files that will fail and the one command that fixes it. The files still run: a missing
 * package shows as their failure, never as a silent pass.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT = 'ops/installSystemPackages.sh';

/** Which test files need which packages (the tests run /usr/bin/chromium and /usr/sbin/slapd). */
const NEEDS: readonly { readonly packages: readonly string[]; readonly needs: (file: string, source: string) => boolean }[] = [
  { packages: ['chromium'], needs: (file) => file.startsWith('test/e2e/') },
  { packages: ['slapd', 'openssl'], needs: (_file, source) => source.includes('peers/slapd.ts') },
];

const runScript = (root: string, args: string[], inherit: boolean) =>
  spawnSync('/bin/bash', [join(root, SCRIPT), ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: inherit ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
  });

/**
 * Makes sure the packages `files` (repository-relative) need are there, installing them as root.
 * Returns what to repeat next to the summary when some are still missing, otherwise null.
 */
export const ensureSystemPackages = (root: string, files: readonly string[]): string | null => {
  const needing = new Map<string, string[]>();
  for (const file of files) {
    const source = readFileSync(join(root, file), 'utf8');
    for (const { packages, needs } of NEEDS) {
      if (!needs(file, source)) continue;
      for (const name of packages) needing.set(name, [...(needing.get(name) ?? []), file]);
    }
  }
  if (needing.size === 0) return null;

  const missingNow = () => (runScript(root, ['--missing'], false).stdout ?? '').split('\n').filter((name) => needing.has(name));
  let missing = missingNow();
  if (missing.length === 0) return null;

  const affectedBy = (names: readonly string[]) => [...new Set(names.flatMap((name) => needing.get(name) ?? []))].sort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    console.log(`${affectedBy(missing).length} selected test file(s) need ${missing.join(', ')}: running ${SCRIPT}`);
    const { status } = runScript(root, [], true);
    missing = missingNow();
    if (status === 0 && missing.length === 0) return null;
  }
  const affected = affectedBy(missing);
  const hint = [
    `missing Debian package(s) ${missing.join(', ')}: these ${affected.length} test file(s) will fail:`,
    ...affected.map((file) => `  ${file}`),
    asRoot ? `${SCRIPT} could not install them (its output is above)` : `to install them once, as root (Debian): sudo ${SCRIPT}`,
  ].join('\n');
  console.log(hint);
  return hint;
};
