import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * Handlers that return their answer (issue 34, docs/ARCHITECTURE.md "The HTTP surface"), kept by
 * a machine:
 * - nothing under `api/rest/` touches Koa: no `ctx`, no import of `koa` or `@koa/router`; the
 *   route kit (`api/http/restRoute.ts`) is the one adapter;
 * - every route declared there names its answers (`responses`), which the kit checks in tests;
 * - the old read-your-writes helper `api/http/settle.ts` is gone.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REST = join(ROOT, 'api/rest');

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const rel = (path: string) => relative(ROOT, path).split(sep).join('/');
const sourceOf = (path: string) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);

const walk = (node: ts.Node, visit: (node: ts.Node) => void): void => {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
};

/** Where a file touches Koa: a `ctx` identifier or an import of koa. */
const koaTouches = (path: string): string[] => {
  const found: string[] = [];
  const source = sourceOf(path);
  walk(source, (node) => {
    const line = () => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    if (ts.isIdentifier(node) && node.text === 'ctx') found.push(`${rel(path)}:${line()} ctx`);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(koa|@koa\/)/.test(node.moduleSpecifier.text))
      found.push(`${rel(path)}:${line()} imports ${node.moduleSpecifier.text}`);
  });
  return found;
};

/** `route({...})` declarations without `responses`. */
const undeclared = (path: string): string[] => {
  const found: string[] = [];
  const source = sourceOf(path);
  walk(source, (node) => {
    if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'route') return;
    const spec = node.arguments[0];
    if (spec === undefined || !ts.isObjectLiteralExpression(spec)) return;
    const names = spec.properties.map((p) => (p.name !== undefined && ts.isIdentifier(p.name) ? p.name.text : ''));
    if (!names.includes('responses')) {
      const where = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${rel(path)}:${where} ${names.includes('path') ? 'declares no responses' : 'not a literal route'}`);
    }
  });
  return found;
};

const restFiles = () => files(REST);

test('no REST handler touches Koa: the route kit is the one adapter', () => {
  assert.equal(restFiles().flatMap(koaTouches), []);
});

test('every REST route declares its responses', () => {
  assert.equal(restFiles().flatMap(undeclared), []);
});

test('the old settle helper is gone', () => {
  assert.not.ok(existsSync(join(ROOT, 'api/http/settle.ts')), 'api/http/settle.ts still exists');
});

test('the rules see what they must', () => {
  const probe = join(ROOT, 'api/http/restRoute.ts');
  assert.ok(koaTouches(probe).length > 0, 'the kit itself speaks Koa, and the walk sees it');
  assert.ok(files(REST).length > 30, 'the REST folder is read');
  const routes = files(REST).flatMap((file) => readFileSync(file, 'utf8').match(/\broute\(\{/g) ?? []);
  assert.ok(routes.length > 100, `the routes are found (${routes.length})`);
});

test.run();
