import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { SERVER_NODE_FLAGS } from '../../ops/serverNodeFlags.ts';
import { TYPESCRIPT_NODE_FLAGS } from '../../ops/typescriptNodeFlags.ts';

const cli = new URL('../../ops/cli.ts', import.meta.url).pathname;

export type CliResult = { readonly code: number | null; readonly stdout: string; readonly stderr: string };

/**
 * Starts `loupe ARGS...` as a child process with only the environment given (plus PATH and HOME),
 * with the V8 flags bin/loupe.js gives every command (ops/serverNodeFlags.ts).
 */
export const spawnCli = (env: Record<string, string>, args: readonly string[]): ChildProcessByStdio<Writable, Readable, Readable> =>
  spawn(process.execPath, [...SERVER_NODE_FLAGS, ...TYPESCRIPT_NODE_FLAGS, cli, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });

/**
 * Runs `loupe ARGS...` as an operator does: a child process of its own, with only the environment
 * given (plus PATH and HOME), `stdin` written to it when given.
 */
export const runCli = (env: Record<string, string>, args: readonly string[], stdin?: string): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawnCli(env, args);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
