import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The folder rules of docs/ARCHITECTURE.md, kept by a machine: every import (static, type-only,
 * re-export, dynamic) of every source file in the server's folders and ui/ is resolved and checked
 * against the table below. Packages (`zod`, `node:fs`) are not folders of ours and are not checked.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Folder = 'domain' | 'projections' | 'ingest' | 'adapters' | 'api' | 'ops' | 'ui';

/** Who may import whom. A folder may always import itself. */
const MAY_IMPORT: Readonly<Record<Folder, readonly string[]>> = {
  domain: [],
  projections: ['domain'],
  ingest: ['domain'],
  // Outbound adapters (a model provider, a webhook): the ports they implement are declared in
  // domain/, the composition root wires them in, and whoever calls out (a reactor in projections/,
  // a route in api/) holds the port, never the adapter.
  adapters: ['domain'],
  api: ['domain', 'projections', 'ingest'],
  // The composition root wires everything together.
  ops: ['domain', 'projections', 'ingest', 'adapters', 'api'],
  // The browser app speaks HTTP only: it shares no code with the server.
  ui: [],
};

/**
 * Files that may mention `process.env` besides ops/config.ts, and why. None reads configuration:
 * they hand the environment on to child processes, or show it in text.
 */
const ENV_EXCEPTIONS: Readonly<Record<string, string>> = {
  'ops/test-runner.ts': 'passes the environment on to each test process',
  'ops/bench/serverProcess.ts': 'passes PATH, HOME, SERVICE_* and NODE_OPTIONS on to the server it benchmarks',
  'ui/src/lib/prompts/promptSnippets.ts': 'only in the text of a code snippet the prompt page shows users',
  'ui/src/lib/projects/sendTracesSnippets.ts': 'only in the text of the register snippet an empty project shows users',
};

const SOURCE = /\.(ts|mts|js|mjs|svelte)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'proto']);

const sourceFiles = (dir: string): string[] => {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // a folder that does not exist yet (ui/ before the UI lands)
  }
  return entries.flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
};

/** Svelte components keep their imports in `<script>` blocks; the rest of the file is markup. */
const scriptOf = (path: string, text: string): string =>
  path.endsWith('.svelte') ? [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text;

/** Every module specifier the file imports, including `import type`, `export … from` and `import()`. */
const importsOf = (path: string): string[] => {
  const text = scriptOf(path, readFileSync(path, 'utf8'));
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
};

/** The top folder a relative specifier lands in, as a path from the repository root. */
const targetOf = (file: string, specifier: string): string | null => {
  if (!specifier.startsWith('.')) return null;
  const target = relative(ROOT, resolve(dirname(file), specifier));
  return target.split(sep)[0] ?? null;
};

const FOLDERS = Object.keys(MAY_IMPORT) as Folder[];

test('every import in domain/, projections/, ingest/, adapters/, api/, ops/ and ui/ follows the folder rules', () => {
  const broken: string[] = [];
  let edges = 0;
  for (const folder of FOLDERS) {
    for (const file of sourceFiles(join(ROOT, folder))) {
      for (const specifier of importsOf(file)) {
        const target = targetOf(file, specifier);
        if (target === null) continue;
        edges += 1;
        if (target === folder || MAY_IMPORT[folder].includes(target)) continue;
        broken.push(`${relative(ROOT, file)} imports ${specifier} (${folder}/ may import ${[folder, ...MAY_IMPORT[folder]].join(', ')})`);
      }
    }
  }
  assert.ok(edges > 500, `only ${edges} imports found: is the parser still reading the files?`);
  assert.equal(broken, [], `forbidden imports:\n${broken.join('\n')}`);
});

test('reactors and the domain call out through ports: nothing in domain/ or projections/ imports api/ or adapters/', () => {
  // A reactor that calls a model or a webhook holds the port (domain/modelCalls/modelCall.ts),
  // wired in by ops/; reaching for the playground's code or the adapter would tie it to one caller.
  for (const folder of ['domain', 'projections'] as const)
    for (const forbidden of ['api', 'adapters'])
      assert.not.ok(MAY_IMPORT[folder].includes(forbidden), `${folder}/ may not import ${forbidden}/`);
  const reactors = sourceFiles(join(ROOT, 'projections')).filter((file) => /Reactor\.ts$/.test(file));
  assert.ok(reactors.length >= 4, `only ${reactors.length} reactors found`);
  const reaching = reactors.flatMap((file) =>
    importsOf(file)
      .filter((specifier) => ['api', 'adapters'].includes(targetOf(file, specifier) ?? ''))
      .map((specifier) => `${relative(ROOT, file)} imports ${specifier}`),
  );
  assert.equal(reaching, []);
});

test('no module reads process.env except ops/config.ts', () => {
  const readers = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)))
    .map((file) => relative(ROOT, file).split(sep).join('/'))
    .filter((file) => file !== 'ops/config.ts' && !(file in ENV_EXCEPTIONS))
    .filter((file) => /\bprocess\.env\b/.test(readFileSync(join(ROOT, file), 'utf8')));
  assert.equal(readers, [], `process.env outside ops/config.ts:\n${readers.join('\n')}`);
});

test('the checker sees what it must: type-only, re-exports and dynamic imports count', () => {
  const specifiers = ts
    .preProcessFile(
      `import type { A } from '../projections/a.ts';\nexport { b } from '../api/b.ts';\nconst c = await import('../ops/c.ts');`,
      true,
      true,
    )
    .importedFiles.map((f) => f.fileName);
  assert.equal(specifiers, ['../projections/a.ts', '../api/b.ts', '../ops/c.ts']);
});

test.run();
