/**
 * `npm install` on a machine whose registry mirror lacks Biome's binaries for other platforms
 * (android, darwin, win32, musl) leaves those optional packages out of package-lock.json, and then
 * `npm ci` refuses the lock as out of sync. This puts them back as lock entries without a tarball:
 * npm never fetches an optional package for another platform, so none is needed.
 * Run after changing dependencies: `npm run ts -- ops/lockfile/restoreBiomePlatforms.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

type LockEntry = Record<string, unknown> & { version?: string; optionalDependencies?: Record<string, string> };
const PATH = new URL('../../package-lock.json', import.meta.url);
const PLATFORMS: Record<string, { os: string; cpu: string; libc?: string }> = {
  'android-arm64': { os: 'android', cpu: 'arm64' },
  'android-x64': { os: 'android', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'win32-arm64': { os: 'win32', cpu: 'arm64' },
  'win32-x64': { os: 'win32', cpu: 'x64' },
};

const lock = JSON.parse(readFileSync(PATH, 'utf8')) as { packages: Record<string, LockEntry> };
const biome = lock.packages['node_modules/@biomejs/biome'];
if (!biome?.version) throw new Error('package-lock.json has no @biomejs/biome');
const added: string[] = [];
for (const name of Object.keys(biome.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = PLATFORMS[name.replace('@biomejs/cli-', '')];
  if (key in lock.packages || platform === undefined) continue;
  lock.packages[key] = {
    version: biome.version,
    cpu: [platform.cpu],
    dev: true,
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: [platform.os],
    engines: { node: '>=14.21.3' },
  };
  added.push(name);
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(PATH, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(added.length ? `restored ${added.join(', ')}` : 'nothing to restore');
