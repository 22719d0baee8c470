import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The base of domain/ (docs/ARCHITECTURE.md, "domain/base/"), kept by a machine:
 * - no import cycle among the server's modules (type-only imports count: a cycle of types still
 *   ties two files so that neither can be read, moved or tested without the other);
 * - every feature's `events.ts` is a leaf: it imports only the base (domain/base/ and the
 *   `DomainEvent` shape in domain/decider.ts), so any feature, read model or reactor may read
 *   another feature's events without pulling in its rules;
 * - only the event-store adapters (domain/eventstore/) query the `events` table: the log's layout
 *   is theirs, everyone else reads it through the port.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER_FOLDERS = ['domain', 'projections', 'ingest', 'adapters', 'api', 'ops'];

const sourceFiles = (dir: string): string[] => {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
};

const posix = (path: string) => relative(ROOT, path).split(sep).join('/');

/** The repository files a module imports (static, type-only, re-export, dynamic), as paths from the root. */
const importsOf = (file: string, known: ReadonlySet<string>): string[] =>
  ts
    .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => posix(resolve(dirname(join(ROOT, file)), specifier)))
    .filter((target) => known.has(target));

/** The strongly connected components of more than one module (or a module importing itself): Tarjan. */
const cyclesOf = (graph: ReadonlyMap<string, readonly string[]>): string[][] => {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
};

const files = SERVER_FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder))).map(posix);
const known = new Set(files);
const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

test('the checker finds a cycle, also one of types, and none in a tree', () => {
  assert.equal(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  );
  assert.equal(cyclesOf(new Map([['a', ['a']]])), [['a']]);
  assert.equal(
    cyclesOf(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

test('no import cycle among the modules of domain/, projections/, ingest/, adapters/, api/ and ops/', () => {
  const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
  assert.ok(edges > 1000, `only ${edges} imports found: is the parser still reading the files?`);
  const cycles = cyclesOf(graph).map((cycle) => cycle.join(' ↔ '));
  assert.equal(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});

test("every feature's events.ts is a leaf: it imports only the base (domain/base/, domain/decider.ts)", () => {
  const eventFiles = files.filter((file) => /^domain\/[^/]+\/events\.ts$/.test(file));
  assert.ok(eventFiles.length >= 12, `only ${eventFiles.length} events.ts files found`);
  const base = (target: string) => target === 'domain/decider.ts' || target.startsWith('domain/base/');
  const reaching = eventFiles.flatMap((file) =>
    graph
      .get(file)!
      .filter((target) => !base(target))
      .map((target) => `${file} imports ${target}`),
  );
  assert.equal(reaching, [], `events.ts importing more than the base:\n${reaching.join('\n')}`);
});

test('the base imports no feature: domain/base/ imports only itself and domain/errors.ts', () => {
  const shared = files.filter((file) => file.startsWith('domain/base/'));
  assert.ok(shared.length >= 4, `only ${shared.length} files in domain/base/`);
  const reaching = shared.flatMap((file) =>
    graph
      .get(file)!
      .filter((target) => !target.startsWith('domain/base/') && target !== 'domain/errors.ts')
      .map((target) => `${file} imports ${target}`),
  );
  assert.equal(reaching, []);
});

/**
 * Benchmarks measure the log's table itself (its rows and bytes), as an operator would with psql;
 * they are tools run by hand, not part of the server.
 */
const EVENTS_TABLE_EXCEPTIONS = ['ops/bench/'];

/** SQL naming the `events` table (keywords upper-case, as every query here writes them; prose does not match). */
const EVENTS_TABLE_SQL = /\b(?:FROM|JOIN|INTO|UPDATE|TRUNCATE|TABLE)\s+(?:ONLY\s+)?"?events"?(?![\w.])/;

test('the pattern finds SQL on the events table and not prose or other tables', () => {
  for (const query of [
    'SELECT 1 FROM events WHERE x',
    'x JOIN events e ON',
    'INSERT INTO events (a)',
    'UPDATE events SET',
    'DELETE FROM "events"',
  ])
    assert.ok(EVENTS_TABLE_SQL.test(query), query);
  for (const text of ['rows built from events', 'FROM events_archive', 'FROM audit_events', 'FROM events_seq.x'])
    assert.not.ok(EVENTS_TABLE_SQL.test(text), text);
});

test('only the event-store adapters (domain/eventstore/) query the events table', () => {
  const queries = files
    .filter((file) => !file.startsWith('domain/eventstore/') && !EVENTS_TABLE_EXCEPTIONS.some((prefix) => file.startsWith(prefix)))
    .filter((file) => EVENTS_TABLE_SQL.test(readFileSync(join(ROOT, file), 'utf8')));
  assert.equal(queries, [], `files outside domain/eventstore/ querying the events table:\n${queries.join('\n')}`);
  assert.ok(
    files
      .filter((file) => file.startsWith('domain/eventstore/'))
      .some((file) => EVENTS_TABLE_SQL.test(readFileSync(join(ROOT, file), 'utf8'))),
    'the event store itself no longer seems to query events: is the pattern still right?',
  );
});

test.run();
