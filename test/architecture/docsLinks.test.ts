import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The docs stay true to the tree and the repository stands alone: every relative link in the
 * README and docs/ lands on a file inside the repository, and every source path they name in
 * backticks (`api/rest/tracing/spanRoutes.ts`, `projections/tracing/`) exists. A rename that forgets the docs
 * fails here. The vendored docs/reference/ texts describe another code base and are not checked.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOP = /^(domain|projections|ingest|api|ops|ui|test|docs|bin|\.ci)\//;
/** Made by a build or a test run, never committed: a clean clone has none of them yet. */
const BUILT = /^(ui\/dist|test-output)(\/|$)/;

const docs = (): string[] => [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md') && !f.startsWith('reference/'))
    .map((f) => join(ROOT, 'docs', f)),
  join(ROOT, 'docs/reference/README.md'),
];

test('every relative link in README.md and docs/ lands on a file inside the repository', () => {
  const broken: string[] = [];
  for (const doc of docs()) {
    // Inline code (a regular expression in backticks, say) holds no links.
    const prose = readFileSync(doc, 'utf8').replace(/`[^`\n]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
      const path = resolve(dirname(doc), target!.split('#')[0]!);
      const inside = !relative(ROOT, path).startsWith('..');
      if (!inside || !existsSync(path))
        broken.push(`${relative(ROOT, doc)}: ${target}${inside ? ' (missing)' : ' (outside the repository)'}`);
    }
  }
  assert.equal(broken, [], broken.join('\n'));
});

test('every source path named in backticks in README.md and docs/ exists', () => {
  const missing: string[] = [];
  for (const doc of docs()) {
    // A section on adding something names files to create: they do not exist yet.
    const text = readFileSync(doc, 'utf8').replace(/^## Adding[\s\S]*?(?=^## )/m, '');
    for (const [, token] of text.matchAll(/`([^`\s]+)`/g)) {
      // Patterns (`domain/<feature>/`, `test/**/*.test.ts`) name a convention, not a file.
      if (!TOP.test(token!) || /[<>*{}]/.test(token!) || BUILT.test(token!)) continue;
      if (!existsSync(join(ROOT, token!))) missing.push(`${relative(ROOT, doc)}: ${token}`);
    }
  }
  assert.equal(missing, [], `named in the docs but not in the tree:\n${missing.join('\n')}`);
});

test.run();
