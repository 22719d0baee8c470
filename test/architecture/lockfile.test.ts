import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * `npm ci` (CI, and every fresh clone) refuses a lock that lacks an optional dependency, even one
 * for another platform. This registry mirror has no Biome binaries for android/darwin/win32/musl,
 * so `npm install` here drops them; `ops/lockfile/restoreBiomePlatforms.ts` puts them back.
 */
test("package-lock.json lists every one of Biome's platform packages", () => {
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, { optionalDependencies?: Record<string, string> }>;
  };
  const wanted = Object.keys(lock.packages['node_modules/@biomejs/biome']?.optionalDependencies ?? {});
  assert.ok(wanted.length > 0, 'Biome lists its platform packages');
  const missing = wanted.filter((name) => !(`node_modules/${name}` in lock.packages));
  assert.equal(missing, [], `run: npm run ts -- ops/lockfile/restoreBiomePlatforms.ts (missing ${missing.join(', ')})`);
});

test.run();
