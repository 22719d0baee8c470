import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../serverNodeFlags.ts';
import { TYPESCRIPT_NODE_FLAGS } from '../typescriptNodeFlags.ts';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

/**
 * What a benchmark hands on from its own environment to the server it starts: extra `SERVICE_*`
 * settings (not the database URL, which each benchmark chooses), NODE_OPTIONS and glibc's MALLOC_*.
 */
export const passedOnEnvironment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        ((entry[0].startsWith('SERVICE_') && entry[0] !== 'SERVICE_SQL_DATABASE_URL') ||
          entry[0] === 'NODE_OPTIONS' ||
          entry[0].startsWith('MALLOC_')),
    ),
  );

export type ServerProcess = {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Base URL as printed, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly otlpHttpPort: number;
  readonly grpcPort: number;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<string>;
  /** SIGKILL now; resolves once the process is gone. */
  kill(): Promise<string>;
  readonly exited: Promise<string>;
};

export type StartServerOptions = {
  /** SERVICE_* variables; host, ports and log level get loopback / random / warn defaults. */
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
  /** Node flags; default: the server's own V8 heap flags (ops/serverNodeFlags.json), as `npm start` gives them. */
  readonly nodeFlags?: readonly string[];
};

const MAX_OUTPUT = 200_000;

/** Servers still running: killed if this process exits or is interrupted, so none is left behind. */
const live = new Set<ChildProcess>();
let handlersInstalled = false;
const installExitHandlers = () => {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of live) child.kill('SIGKILL');
      process.exit(130);
    });
  }
};

/** `loupe serve` as a child process, the way an operator runs it; resolves once it prints its URL. */
export const startServerProcess = async (options: StartServerOptions): Promise<ServerProcess> => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    SERVICE_GRPC_PORT: '0',
    SERVICE_OTLP_HTTP_PORT: '0',
    SERVICE_LOG_LEVEL: 'warn',
    ...options.env,
  };
  const child = spawn(process.execPath, [...(options.nodeFlags ?? SERVER_NODE_FLAGS), ...TYPESCRIPT_NODE_FLAGS, CLI, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  installExitHandlers();
  live.add(child);
  child.once('exit', () => live.delete(child));
  let output = '';
  // BENCH_SERVER_LOG=FILE keeps everything the server writes (e.g. with --node-flag=--trace-gc).
  const log = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' }) : null;
  child.once('exit', () => log?.end());
  const append = (chunk: Buffer) => {
    log?.write(chunk);
    output += chunk.toString();
    if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT / 2);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`)),
  );
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let match: RegExpExecArray | null = null;
  while (!match) {
    // The start banner (ops/startBanner.ts): the URL, then "OTLP traces http://host:PORT/v1/traces …, gRPC host:PORT".
    match = /Loupe is running at (\S+)\s+OTLP traces\s+\S+?:(\d+)\/v1\/traces.*?, gRPC \S+?:(\d+)/.exec(output);
    if (match) break;
    if (gone) throw new Error(`server exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not print its URL in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const kill = async () => {
    if (!gone) child.kill('SIGKILL');
    return exited;
  };
  return {
    child,
    pid: child.pid!,
    url: match[1]!.replace('localhost', '127.0.0.1'),
    otlpHttpPort: Number(match[2]),
    grpcPort: Number(match[3]),
    output: () => output,
    exited,
    kill,
    stop: async (graceMs = 30_000) => {
      if (!gone) child.kill('SIGTERM');
      const timer = setTimeout(() => void kill(), graceMs);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
};
