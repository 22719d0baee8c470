/**
 * `loupe <command> [options]`: subcommand first, `serve` when none is given. The arguments are
 * checked before the configuration is read (so `--help` works with a broken environment) and the
 * configuration is checked before any command module is loaded (so nothing listens with it).
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import type { CommandModule } from './commands/command.ts';
import { DataDirInUseError } from './database/dataDirLock.ts';
import { pipedOutput } from './pipedOutput.ts';

const EXIT_USAGE = 2;
const EXIT_CONFIG = 2;
/** The embedded database is held by another process (EX_TEMPFAIL: try again once it is stopped). */
const EXIT_IN_USE = 75;

interface CommandSpec {
  /** The words that select it, e.g. ['db', 'migrate']. */
  readonly words: readonly string[];
  /** `ops/commands/<module>.ts` */
  readonly module: string;
  readonly arguments: string;
  readonly summary: string;
  readonly options: ParseArgsOptionsConfig;
  readonly positionals: { readonly min: number; readonly max: number };
  readonly check?: (values: Record<string, unknown>) => string | null;
}

const isoDate = (name: string, value: unknown): string | null =>
  typeof value === 'string' && Number.isNaN(Date.parse(value))
    ? `--${name} must be an ISO 8601 date or time, such as 2025-01-31 or 2025-01-31T12:00:00Z (got ${JSON.stringify(value)})`
    : null;

const COMMANDS: readonly CommandSpec[] = [
  {
    words: ['serve'],
    module: 'serve',
    arguments: '',
    summary: 'start the server (the default when no command is given)',
    options: {},
    positionals: { min: 0, max: 0 },
  },
  {
    words: ['db', 'migrate'],
    module: 'dbMigrate',
    arguments: '',
    summary: 'apply pending database migrations, then exit',
    options: {},
    positionals: { min: 0, max: 0 },
  },
  {
    words: ['projections', 'status'],
    module: 'projectionsStatus',
    arguments: '',
    summary: "show each projection's position and lag behind the event log",
    options: {},
    positionals: { min: 0, max: 0 },
  },
  {
    words: ['projections', 'rebuild'],
    module: 'projectionsRebuild',
    arguments: '[NAME]',
    summary: 'replay the event log into fresh read-model tables and swap them in (all, or NAME)',
    options: {},
    positionals: { min: 0, max: 1 },
  },
  {
    words: ['projections', 'skip'],
    module: 'projectionsSkip',
    arguments: 'NAME --event POSITION [--reason TEXT]',
    summary: 'record in the log that read model NAME does without the event at POSITION it cannot apply (rebuilds skip it too)',
    options: { event: { type: 'string' }, reason: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    check: (values) =>
      typeof values.event !== 'string'
        ? '--event POSITION is required (the tx:seq that "loupe projections status" shows)'
        : /^\d+:\d+$/.test(values.event)
          ? null
          : `--event must be a position such as 1234:56, as "loupe projections status" shows it (got ${JSON.stringify(values.event)})`,
  },
  {
    words: ['projections', 'retry'],
    module: 'projectionsRetry',
    arguments: 'NAME',
    summary: 'try a stopped read model again now (after a fix or a skip) and catch it up with the log',
    options: {},
    positionals: { min: 1, max: 1 },
  },
  {
    words: ['events', 'export'],
    module: 'eventsExport',
    arguments: '[--stream S] [--type T] [--from ISO] [--to ISO]',
    summary: 'write the raw event log to stdout as JSON lines, optionally filtered',
    options: {
      stream: { type: 'string' },
      type: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
    },
    positionals: { min: 0, max: 0 },
    check: (values) => isoDate('from', values.from) ?? isoDate('to', values.to),
  },
  {
    words: ['events', 'copy'],
    module: 'eventsCopy',
    arguments: '--to URL',
    summary: 'copy the event log into an empty one: EventStoreDB (kurrentdb://, esdb://) or PostgreSQL (postgres://), with a progress bar',
    options: { to: { type: 'string' } },
    positionals: { min: 0, max: 0 },
    check: (values) => (typeof values.to === 'string' && values.to !== '' ? null : '--to URL is required'),
  },
  {
    words: ['audit', 'verify'],
    module: 'auditVerify',
    arguments: '',
    summary: 'check the audit chain over the whole event log; exit 0 when intact, else 1 naming the first bad position',
    options: {},
    positionals: { min: 0, max: 0 },
  },
  {
    words: ['audit', 'export'],
    module: 'auditExport',
    arguments: '[--out FILE]',
    summary: 'seal what is new, then write every event with its seal as JSON lines (stdout or FILE), for bin/loupe-audit-check.mjs',
    options: { out: { type: 'string' } },
    positionals: { min: 0, max: 0 },
  },
  {
    words: ['users', 'set-password'],
    module: 'usersSetPassword',
    arguments: 'EMAIL',
    summary: "set a local user's password",
    options: {},
    positionals: { min: 1, max: 1 },
  },
];

const HELP_OPTION: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };

const commandLine = (spec: CommandSpec) => [...spec.words, spec.arguments].filter(Boolean).join(' ');

const usage = (): string =>
  [
    'usage: loupe [command] [options]',
    '',
    'commands:',
    ...COMMANDS.flatMap((spec) => [`  ${commandLine(spec)}`, `      ${spec.summary}`]),
    '',
    'options:',
    '  -h, --help     show this help (also after a command)',
    '  -v, --version  print the version',
    '',
    'Configuration comes from SERVICE_* environment variables; see README.md.',
  ].join('\n');

const commandUsage = (spec: CommandSpec) => `usage: loupe ${commandLine(spec)}\n\n${spec.summary}`;

const version = (): string => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
};

type Parsed =
  | { readonly kind: 'print'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string; readonly usage: string }
  | { readonly kind: 'run'; readonly spec: CommandSpec; readonly args: string[] };

const parseCommand = (argv: readonly string[]): Parsed => {
  const [first] = argv;
  if (first === '-h' || first === '--help' || first === 'help') return { kind: 'print', text: usage() };
  if (first === '-v' || first === '-V' || first === '--version') return { kind: 'print', text: version() };

  const explicit = first !== undefined && !first.startsWith('-');
  const spec = explicit ? COMMANDS.find((candidate) => candidate.words.every((word, i) => argv[i] === word)) : COMMANDS[0];
  if (spec === undefined) {
    const family = COMMANDS.filter((candidate) => candidate.words[0] === first);
    const message =
      family.length > 0
        ? `"${first}" needs one of: ${family.map((candidate) => candidate.words.slice(1).join(' ')).join(', ')}`
        : `unknown command "${first}"`;
    return { kind: 'error', message, usage: usage() };
  }
  const args = argv.slice(explicit ? spec.words.length : 0);
  const name = spec.words.join(' ');

  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...spec.options, ...HELP_OPTION }, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: 'error', message: `${name}: ${(error as Error).message}`, usage: commandUsage(spec) };
  }
  if (parsed.values.help === true) {
    return { kind: 'print', text: commandUsage(spec) };
  }
  const { min, max } = spec.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const expected = max === 0 ? 'takes no arguments' : `expects ${spec.arguments}`;
    return {
      kind: 'error',
      message: `${name} ${expected} (got ${parsed.positionals.length})`,
      usage: commandUsage(spec),
    };
  }
  const problem = spec.check?.(parsed.values) ?? null;
  if (problem !== null) return { kind: 'error', message: `${name}: ${problem}`, usage: commandUsage(spec) };
  return { kind: 'run', spec, args };
};

// A reader that stops early (`loupe ... | head`) is not an error of ours: commands see it through
// their writes (pipedOutput.ts); without a listener the EPIPE would end the process with a stack trace.
const stdout = pipedOutput(process.stdout);
const stderr = pipedOutput(process.stderr);

const main = async (argv: readonly string[]): Promise<number | void> => {
  const parsed = parseCommand(argv);
  if (parsed.kind === 'print') {
    console.log(parsed.text);
    return 0;
  }
  if (parsed.kind === 'error') {
    console.error(`loupe: ${parsed.message}\n\n${parsed.usage}`);
    return EXIT_USAGE;
  }

  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`loupe: invalid configuration (${error.problems.length} problem(s)):`);
    console.error(error.message);
    return EXIT_CONFIG;
  }

  const command = (await import(`./commands/${parsed.spec.module}.ts`)) as CommandModule;
  try {
    return await command.run(config, parsed.args);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`loupe: invalid configuration:\n${error.message}`);
      return EXIT_CONFIG;
    }
    if (error instanceof DataDirInUseError) {
      console.error(`loupe: ${error.message}`);
      return EXIT_IN_USE;
    }
    throw error;
  }
};

try {
  const code = await main(process.argv.slice(2));
  if (typeof code === 'number') {
    // Buffered output is written before exiting; not waited for when its reader has gone (EPIPE).
    await Promise.all([stdout.flush(), stderr.flush()]);
    // A reader leaving is fine; an output that failed otherwise (a full disk) is not a success.
    if (stdout.failure && code === 0) {
      console.error(`loupe: cannot write the output: ${stdout.failure.message}`);
      process.exit(1);
    }
    process.exit(code);
  }
} catch (error) {
  console.error(`loupe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
