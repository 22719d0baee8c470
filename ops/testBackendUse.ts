import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The test helpers through which a test file reaches the backend CI selects (the SQL database of
 * SERVICE_SQL_DATABASE_URL, the log of LOUPE_TEST_EVENTSTORE). Nothing else in the tree reads
 * those variables (test/architecture/importBoundaries.test.ts keeps reading the environment to
 * ops/config.ts; CLI processes a test starts get only the environment it names).
 */
const BACKEND_SELECTORS = ['test/support/database.ts', 'test/support/eventStoreBackend.ts'];

const RELATIVE_IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * Whether a test file's outcome can depend on the backend CI selects: whether the test files and
 * test helpers it imports (transitively, relative imports under `test/`) include one of the
 * backend selectors. A file that does not (a decider spec, a UI component, the code rules, a CLI
 * run on a data directory of its own) runs the same way in every CI run, so CI runs it once.
 */
export const createBackendUse = (root: string) => {
  const selectors = new Set(BACKEND_SELECTORS.map((file) => resolve(root, file)));
  const testDir = resolve(root, 'test');
  const importsOf = new Map<string, string[]>();
  const imports = (file: string): string[] => {
    let found = importsOf.get(file);
    if (found === undefined) {
      let source = '';
      try {
        source = readFileSync(file, 'utf8');
      } catch {
        // not a file of ours (a folder import, a generated file): it selects nothing
      }
      found = [...source.matchAll(RELATIVE_IMPORT)].map((m) => resolve(dirname(file), (m[1] ?? m[2])!));
      importsOf.set(file, found);
    }
    return found;
  };
  const reaches = (file: string, visited: Set<string>): boolean => {
    if (selectors.has(file)) return true;
    if (visited.has(file) || !file.startsWith(testDir)) return false;
    visited.add(file);
    return imports(file).some((imported) => reaches(imported, visited));
  };
  return (file: string): boolean => reaches(resolve(root, file), new Set());
};
