import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The processor under read models and reactors stays in small named parts (docs/ARCHITECTURE.md,
 * "The processor"): the runner that had grown one 471-line closure is composed of them, and no
 * function of the processor, the read model runner or the reactor runner grows past 80 lines.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_FUNCTION_LINES = 80;

const PARTS = [
  ...readdirSync(join(ROOT, 'projections/processor')).map((f) => `projections/processor/${f}`),
  ...readdirSync(join(ROOT, 'projections/reactors')).map((f) => `projections/reactors/${f}`),
  'projections/projectionRunner.ts',
  'projections/readModelLane.ts',
  'projections/readModelCheckpoints.ts',
  'projections/applyToLanes.ts',
  'projections/readModelOwnership.ts',
  'projections/readModelStep.ts',
  'projections/readModelPartitions.ts',
  'projections/readYourWrites.ts',
].filter((f) => f.endsWith('.ts'));

const longFunctions = (path: string): string[] => {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES) found.push(`${path}:${start + 1} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

test('the read model runner is under 250 lines and no processor function is over 80', () => {
  const runner = readFileSync(join(ROOT, 'projections/projectionRunner.ts'), 'utf8').split('\n').length;
  assert.ok(runner < 250, `projections/projectionRunner.ts has ${runner} lines`);
  assert.ok(PARTS.length >= 12, `only ${PARTS.length} parts found`);
  assert.equal(PARTS.flatMap(longFunctions), []);
});

test('the checker counts what it must: a long function is found', () => {
  const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const source = ts.createSourceFile('x.ts', `const f = () => {\n${body}\n};`, ts.ScriptTarget.Latest, true);
  let longest = 0;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node)) {
      const lines =
        source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      longest = Math.max(longest, lines);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  assert.ok(longest > MAX_FUNCTION_LINES, relative(ROOT, 'x.ts'));
});

test.run();
