import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// The script `npm test` (as root) and .ci/run install the tests' Debian packages through. These
// runs hide the packages by giving the script a PATH without them, so nothing is installed.
const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'ops/installSystemPackages.sh');

const runScript = (args: string[], options: { path: string; asNobody?: boolean }) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const [file, argv] = options.asNobody
      ? ['/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '/bin/bash', script, ...args]]
      : ['/bin/bash', [script, ...args]];
    execFile(file, argv, { env: { PATH: options.path } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });

test('given programs it cannot find, when asked for what is missing, then it names their packages and installs nothing', async () => {
  const { code, stdout } = await runScript(['--missing'], { path: '/nonexistent' });
  assert.is(code, 0);
  // chromium, ldapsearch and openssl live in /usr/bin; slapd in /usr/sbin, which the script adds
  for (const name of ['chromium', 'ldap-utils', 'openssl']) assert.ok(stdout.split('\n').includes(name), stdout);
});

test('given missing packages and no apt-get, then it fails naming them, installing nothing', async () => {
  const { code, stderr } = await runScript([], { path: '/nonexistent' });
  assert.is(code, 1);
  assert.match(stderr, /missing chromium ldap-utils openssl/);
  assert.match(stderr, /not a Debian machine \(no apt-get\)/);
});

test('given missing packages on Debian without root, then it names the one command to run as root', async () => {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/setpriv')) {
    console.log('skipped: needs root to run the script as another user');
    return;
  }
  // apt-get is found, chromium is not; the script runs as nobody, so it cannot install anything
  const dir = await mkdtemp(join(tmpdir(), 'loupe-packages-'));
  try {
    await chmod(dir, 0o755); // nobody searches it
    await symlink('/usr/bin/apt-get', join(dir, 'apt-get'));
    const { code, stderr } = await runScript([], { path: dir, asNobody: true });
    assert.is(code, 1, stderr);
    assert.match(stderr, /missing chromium ldap-utils openssl; to install them run, as root:/);
    assert.match(stderr, new RegExp(`^ {2}sudo ${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('given an unknown argument, then it prints its usage and exits 2', async () => {
  const { code, stderr } = await runScript(['--bogus'], { path: '/usr/bin:/bin' });
  assert.is(code, 2);
  assert.match(stderr, /usage: .*installSystemPackages\.sh \[--missing\]/);
});

test.run();
