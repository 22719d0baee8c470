import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVER_NODE_FLAGS } from '../../ops/serverNodeFlags.ts';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

test('given the server heap flags, then `npm start` passes every one of them to node', () => {
  assert.ok(SERVER_NODE_FLAGS.length > 0);
  const start = packageJson.scripts.start!.split(' ');
  for (const flag of SERVER_NODE_FLAGS) assert.ok(start.slice(0, start.indexOf('--import')).includes(flag), `npm start lacks ${flag}`);
});

test('given the server heap flags, then this node accepts them and sizes the young generation by them', () => {
  const out = spawnSync(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      '-e',
      "const v8 = require('node:v8'); console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)",
    ],
    { encoding: 'utf8' },
  );
  assert.is(out.status, 0, out.stderr);
  // Two semi-spaces of at most 8 MB each.
  assert.ok(Number(out.stdout.trim()) <= 16 * 1024 * 1024, out.stdout);
});

test.run();
