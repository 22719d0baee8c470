import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, type CliResult } from '../support/cliProcess.ts';
import { auditedServerLog } from './auditedServerLog.ts';

const test = suite('loupe audit export, checked offline by bin/loupe-audit-check.mjs');

const checker = new URL('../../bin/loupe-audit-check.mjs', import.meta.url).pathname;

/** The offline check as an auditor runs it: plain node, the secret on stdin. */
const check = (file: string, secret: string): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [checker, file], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(`${secret}\n`);
  });

let log: Awaited<ReturnType<typeof auditedServerLog>>;
let dir: string;
let file: string;
let secret: string;
test.before(async () => {
  log = await auditedServerLog();
  dir = await mkdtemp(join(tmpdir(), 'loupe-audit-export-'));
  file = join(dir, 'audit.jsonl');
  secret = log.env.SERVICE_SECRET!;
  const exported = await runCli(log.env, ['audit', 'export', '--out', file]);
  assert.is(exported.code, 0, exported.stderr);
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
  await log.cleanup();
});

test('the export holds every event with its seal, and no secret value', async () => {
  const text = await readFile(file, 'utf8');
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(lines[0].kind, 'header');
  assert.is(lines.at(-1).kind, 'end');
  const events = lines.filter((l) => l.kind === 'event');
  assert.ok(events.some((e) => e.type === 'UserCreated') && events.some((e) => e.type === 'SpansIngested'));
  assert.ok(
    events.every((e) => /^[0-9a-f]{64}$/.test(e.seal)),
    'every event is sealed (the export seals first)',
  );
  for (const value of [secret, log.env.SERVICE_ADMIN_SECRET!, 'a-password-1', 'personal data']) assert.not.ok(text.includes(value), value);
});

test('the offline verifier accepts the export with the key', async () => {
  const result = await check(file, secret);
  assert.is(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^intact: \d+ sealed events/);
  assert.match(result.stdout, /\n1 event\(s\) erased by the removal record at position \d+\n/);
});

test('and rejects it with another key', async () => {
  const result = await check(file, 'another-secret-0123456789abcdefghijkl');
  assert.is(result.code, 1);
  assert.match(result.stdout, /sealed with key a-[0-9a-f]{12}; the secret given is key a-/);
});

test('and rejects it with one byte changed: in an event, or anywhere', async () => {
  const original = await readFile(file);
  const text = original.toString('utf8');
  const tampered = join(dir, 'tampered.jsonl');
  // A letter inside the first user's data: the file stays valid JSON, only a seal notices.
  const at = text.indexOf('ada@example.com');
  assert.ok(at > 0);
  const oneLetter = Buffer.from(original);
  oneLetter[at] = 'e'.charCodeAt(0);
  await writeFile(tampered, oneLetter);
  const changed = await check(tampered, secret);
  assert.is(changed.code, 1, changed.stdout);
  assert.match(changed.stdout, /does not match its seal/);
  // The export time in the header (not part of any seal, covered by the end line's MAC).
  const inHeader = Buffer.from(original);
  const digit = text.indexOf('"exportedAt":"') + '"exportedAt":"'.length + 3;
  inHeader[digit] = inHeader[digit] === 0x31 ? 0x32 : 0x31;
  await writeFile(tampered, inHeader);
  const header = await check(tampered, secret);
  assert.is(header.code, 1, header.stdout);
  assert.match(header.stdout, /the header or a checkpoint line was altered/);
  // Bytes spread over the whole file, each changed alone.
  for (const fraction of [0.02, 0.1, 0.35, 0.6, 0.85, 0.999]) {
    const bytes = Buffer.from(original);
    const i = Math.floor(bytes.length * fraction);
    bytes[i] = bytes[i] === 0x31 ? 0x32 : 0x31;
    await writeFile(tampered, bytes);
    const result = await check(tampered, secret);
    assert.is(result.code, 1, `byte ${i} of ${bytes.length}: ${result.stdout}`);
  }
});

test('and rejects it cut short', async () => {
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  const tampered = join(dir, 'cut.jsonl');
  await writeFile(tampered, `${lines.slice(0, -3).join('\n')}\n`);
  const result = await check(tampered, secret);
  assert.is(result.code, 1);
  assert.match(result.stdout, /cut short/);
});

test.run();
