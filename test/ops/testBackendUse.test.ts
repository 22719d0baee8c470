import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createBackendUse } from '../../ops/testBackendUse.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

test('the suite: a file reaches the selected backend through the helpers it imports, however deep', () => {
  const dependsOnBackend = createBackendUse(ROOT);
  // a pure decider spec, a CLI run on a data directory of its own, the OTLP decoder
  assert.not.ok(dependsOnBackend('test/domain/projects/projectDecider.test.ts'));
  assert.not.ok(dependsOnBackend('test/ops/embeddedDataDirLock.test.ts'));
  assert.not.ok(dependsOnBackend('test/ingest/otlpProtobuf.test.ts'));
  // through testServer.ts, through cliDatabase.ts, through the browser flows' uiServer.ts
  assert.ok(dependsOnBackend('test/api/projects/projects.test.ts'));
  assert.ok(dependsOnBackend('test/ops/commands.test.ts'));
  assert.ok(dependsOnBackend('test/e2e/tracingFlows.test.ts'));
});

test('static, re-exported and dynamic imports count; cycles end; code outside test/ selects nothing', () => {
  const root = mkdtempSync(join(tmpdir(), 'loupe-backend-use-'));
  mkdirSync(join(root, 'test/support'), { recursive: true });
  const write = (file: string, text: string) => writeFileSync(join(root, file), text);
  write('test/support/database.ts', 'export const freshDatabase = 1;');
  write('test/support/a.ts', "import { b } from './b.ts';\nexport const a = b;");
  write('test/support/b.ts', "import { a } from './a.ts';\nexport const b = () => import('./database.ts');");
  write('test/support/again.ts', "export { a } from './a.ts';");
  write('test/support/cyclic.ts', "import './cyclic.ts';\nimport '../../ops/uses.ts';");
  write('test/deep.test.ts', "import { a } from './support/again.ts';");
  write('test/cycle.test.ts', "import './support/cyclic.ts';");
  mkdirSync(join(root, 'ops'));
  write('ops/uses.ts', "import '../test/support/database.ts';");
  const dependsOnBackend = createBackendUse(root);
  assert.ok(dependsOnBackend('test/deep.test.ts'));
  assert.not.ok(dependsOnBackend('test/cycle.test.ts'));
});

test.run();
