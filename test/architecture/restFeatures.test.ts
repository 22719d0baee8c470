import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The rules of the REST route kit (docs/ARCHITECTURE.md, "The HTTP surface"), kept by a machine:
 * - a file under `api/rest/<feature>/` imports from another feature's folder only its JSON shapes
 *   (`*Json.ts`) and lookups (`resolve*.ts`); shared helpers live in `api/http/`;
 * - only the kit (`api/http/`) turns a `DomainError` into an HTTP answer;
 * - no route writes a permission name: it comes from the table through `restPermission`.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const API = join(ROOT, 'api');

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const rel = (path: string) => relative(ROOT, path).split(sep).join('/');
const importsOf = (path: string) => ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles.map((f) => f.fileName);

/** The api/ folder a file belongs to: `rest/<feature>` for REST features, else its first folder (`http`, `identity`, ...). */
const areaOf = (path: string): string => {
  const parts = rel(path).split('/').slice(1);
  return parts[0] === 'rest' ? `rest/${parts[1]}` : parts.length > 1 ? parts[0]! : '';
};

/** A REST feature's own non-REST api folder (identity's authentication lives in `api/identity/`). */
const OWN_FOLDERS: Readonly<Record<string, string>> = { 'rest/identity': 'identity' };
/** What every REST feature may use: the kit and the app's dependencies. */
const SHARED = new Set(['http', '']);

test('a REST feature imports only JSON shapes and lookups from other features', () => {
  const broken: string[] = [];
  for (const file of files(join(API, 'rest'))) {
    const from = areaOf(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(`${API}${sep}`)) continue;
      const to = areaOf(target);
      if (to === from || SHARED.has(to) || OWN_FOLDERS[from] === to) continue;
      const name = target.split(sep).at(-1)!;
      if (to.startsWith('rest/') && (/Json\.ts$/.test(name) || /^resolve[A-Z]\w*\.ts$/.test(name))) continue;
      broken.push(`${rel(file)} imports ${specifier}`);
    }
  }
  assert.equal(broken, [], `REST features reaching into each other:\n${broken.join('\n')}`);
});

test('only the route kit in api/http/ maps a DomainError to HTTP', () => {
  const broken = files(API)
    .filter((file) => !rel(file).startsWith('api/http/') && !rel(file).startsWith('api/graphql/'))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return /instanceof DomainError[\s\S]{0,300}new HttpError\(/.test(text) || /\bDomainErrorKind\b/.test(text);
    })
    .map(rel);
  assert.equal(broken, []);
});

test('no route writes a permission name: REST routes take theirs from the table', () => {
  const broken = files(API)
    .filter((file) => /\bpermission:\s*'(?!public')[^']*'/.test(readFileSync(file, 'utf8')))
    .map(rel);
  assert.equal(broken, []);
});

test('the rules see what they must', () => {
  assert.is(areaOf(join(API, 'rest/datasets/datasetRoutes.ts')), 'rest/datasets');
  assert.is(areaOf(join(API, 'http/restRoute.ts')), 'http');
  assert.is(areaOf(join(API, 'routes.ts')), '');
  assert.ok(files(join(API, 'rest')).length > 30, 'the REST folder is read');
});

test.run();
