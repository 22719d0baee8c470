import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureProject } from '../../domain/projects/ensureProject.ts';
import { loadConfig } from '../../ops/config.ts';
import { openEventLog } from '../../ops/openEventLog.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { cliDatabase } from '../support/cliDatabase.ts';
import { runCli, spawnCli } from '../support/cliProcess.ts';

/**
 * The operator's way out, through the real CLI (a child process per command, as an operator runs
 * it): `status` shows where a read model stopped and why, `retry` says it still fails, `skip`
 * records the decision in the log, `retry` then moves on, and a rebuild makes the same decision.
 * Also: a rebuild killed with SIGKILL leaves nothing behind once the next rebuild has run.
 */
const run = (env: Record<string, string>, ...args: string[]) => runCli(env, args);

let env: Record<string, string>;
let cleanup: () => Promise<void>;

test.before(async () => {
  ({ env, cleanup } = await cliDatabase());
});
test.after(async () => {
  await cleanup();
});

/** Opens the database in this process for a moment (PGlite allows one process at a time). */
const withLog = async <T>(work: (log: Awaited<ReturnType<typeof openEventLog>>) => Promise<T>): Promise<T> => {
  const log = await openEventLog(loadConfig(env));
  try {
    return await work(log);
  } finally {
    await log.close();
  }
};

test('status names a stopped read model; retry reports it still fails; skip records the decision; retry moves on; rebuild agrees', async () => {
  const poison = await withLog(async (log) => {
    // The tracing read model genuinely cannot store this project: its table refuses the name.
    await log.database.pool.query(sql.unsafe`ALTER TABLE projects ADD CONSTRAINT refuse_poison CHECK (name <> 'poison-me')`);
    const { created } = await ensureProject(log.store, 'poison-me', { actor: 'test', requestId: null });
    await ensureProject(log.store, 'fine-after', { actor: 'test', requestId: null });
    const runner = createProjectionRunner({ store: log.store, pool: log.database.pool, projections: allProjections() });
    await runner.catchUp();
    assert.is(runner.projections().find((p) => p.name === 'tracing')?.stop?.event.type, 'ProjectCreated');
    return `${created!.tx}:${created!.seq}`;
  });

  const status = await run(env, 'projections', 'status');
  assert.is(status.code, 3, 'status exits 3 while a read model is stopped');
  assert.match(status.stdout, new RegExp(`tracing STOPPED since .* at event ${poison} \\(ProjectCreated in stream `));
  assert.match(status.stdout, /refuse_poison.*SQLSTATE 23514/);
  assert.match(status.stdout, new RegExp(`loupe projections skip tracing --event ${poison}`));

  const stillFailing = await run(env, 'projections', 'retry', 'tracing');
  assert.is(stillFailing.code, 1);
  assert.match(stillFailing.stderr, new RegExp(`still failing: tracing stopped at event ${poison}`));

  const missing = await run(env, 'projections', 'skip', 'tracing');
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /--event POSITION is required/);
  const nowhere = await run(env, 'projections', 'skip', 'tracing', '--event', '1:1');
  assert.is(nowhere.code, 1);
  assert.match(nowhere.stderr, /no event at position 1:1; nothing recorded/);
  const unknown = await run(env, 'projections', 'skip', 'nope', '--event', poison);
  assert.is(unknown.code, 2);

  const skip = await run(env, 'projections', 'skip', 'tracing', '--event', poison, '--reason', 'name refused by a hand-made constraint');
  assert.is(skip.code, 0, skip.stderr);
  assert.match(skip.stdout, new RegExp(`recorded: tracing skips event ${poison} \\(ProjectCreated`));

  const retried = await run(env, 'projections', 'retry', 'tracing');
  assert.is(retried.code, 0, retried.stderr);
  assert.match(retried.stdout, /tracing: running, at \d+:\d+/);
  const clean = await run(env, 'projections', 'status');
  assert.is(clean.code, 0, clean.stdout);
  assert.not.match(clean.stdout, /STOPPED/);

  const live = await withLog((log) => log.database.pool.anyFirst(sql.unsafe`SELECT name FROM projects ORDER BY name`));
  assert.ok(live.includes('fine-after') && !live.includes('poison-me'), `live projects: ${live.join(', ')}`);
  const rebuild = await run(env, 'projections', 'rebuild', 'tracing');
  assert.is(rebuild.code, 0, rebuild.stderr);
  await withLog(async (log) => {
    assert.equal(await log.database.pool.anyFirst(sql.unsafe`SELECT name FROM projects ORDER BY name`), live, 'rebuild = live');
    const decisions = await log.store.readStream('projection-decisions');
    assert.is(decisions.length, 1);
    assert.is(decisions[0]!.metadata.actor, 'operator');
    assert.equal(decisions[0]!.data, {
      projection: 'tracing',
      eventId: (decisions[0]!.data as { eventId: string }).eventId,
      position: poison,
      stream: (decisions[0]!.data as { stream: string }).stream,
      type: 'ProjectCreated',
      reason: 'name refused by a hand-made constraint',
    });
  });
});

test('a rebuild killed with SIGKILL leaves no scratch schema or checkpoint row once the next rebuild has run', async () => {
  await withLog(async (log) => {
    const meta = { actor: 'test', requestId: null, time: new Date().toISOString(), causation: null };
    for (let i = 0; i < 20; i++) {
      await log.store.appendToStream(
        `filler-${i}`,
        Array.from({ length: 500 }, (_, n) => ({ type: 'Filler', data: { n }, metadata: meta })),
        'any',
      );
    }
  });
  const child = spawnCli(env, ['projections', 'rebuild', 'tracing']);
  const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('replaying')) resolve();
    });
    child.on('exit', () => resolve());
  });
  child.kill('SIGKILL');
  assert.is(await exited, 'SIGKILL', `killed mid-replay (output: ${out})`);
  const leftovers = () =>
    withLog(async (log) => ({
      schemas: await log.database.pool.anyFirst(sql.unsafe`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%'`),
      rows: await log.database.pool.anyFirst(sql.unsafe`SELECT name FROM projection_checkpoints WHERE name LIKE '%@%'`),
    }));
  const left = await leftovers();
  assert.is(left.schemas.length, 1, 'the kill left its scratch schema (the case being fixed)');
  const next = await run(env, 'projections', 'rebuild', 'secrets');
  assert.is(next.code, 0, next.stderr);
  assert.equal(await leftovers(), { schemas: [], rows: [] });
});

test.run();
