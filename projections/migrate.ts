import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { Migration } from '../domain/eventstore/migration.ts';

/** Turns trusted SQL text (our own migrations) into a slonik query. */
export const rawSql = (text: string) => {
  // slonik insists on a real template literal: a frozen strings array with a frozen `raw`.
  const strings = Object.freeze(Object.assign([text], { raw: Object.freeze([text]) }));
  return sql.unsafe(strings as unknown as TemplateStringsArray);
};

/**
 * Splits a migration into statements (the pg driver runs one statement per query). Semicolons
 * inside quotes, dollar-quoted bodies and comments do not split.
 */
export const splitStatements = (text: string): string[] => {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest);
    if (dollar) {
      const end = text.indexOf(dollar[0], i + dollar[0].length);
      const stop = end === -1 ? text.length : end + dollar[0].length;
      current += text.slice(i, stop);
      i = stop;
    } else if (rest.startsWith("'")) {
      let j = i + 1;
      while (j < text.length && !(text[j] === "'" && text[j + 1] !== "'")) j += text[j] === "'" ? 2 : 1;
      current += text.slice(i, j + 1);
      i = j + 1;
    } else if (rest.startsWith('--')) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (text[i] === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      i++;
    } else {
      current += text[i];
      i++;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
};

export const runMigrationSql = async (db: CommonQueryMethods, migration: Migration): Promise<void> => {
  for (const statement of splitStatements(migration.sql)) await db.query(rawSql(statement));
};

/**
 * Applies the migrations not yet recorded, in the given order, in one transaction under an
 * advisory lock, so two processes starting together do not both migrate.
 */
export const migrate = async (pool: DatabasePool, migrations: readonly Migration[]): Promise<string[]> => {
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  return pool.transaction(async (tx) => {
    // A migration that rewrites a big table (filling a new column over a million spans) takes
    // minutes; the pool's per-statement timeout is for requests, not for this one transaction,
    // nor for a second process waiting on the lock below while the first one migrates.
    await tx.query(sql.unsafe`SET LOCAL statement_timeout = 0`);
    // Processes starting together (several `loupe serve` on one database) migrate one after the
    // other; the later ones then find every migration recorded (READ COMMITTED: a fresh snapshot
    // per statement, taken after the lock is granted).
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(7305001)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS schema_migrations (
      id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const applied = new Set(await tx.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM schema_migrations`));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.id)) continue;
      await runMigrationSql(tx, migration);
      await tx.query(sql.unsafe`INSERT INTO schema_migrations (id) VALUES (${migration.id})`);
      done.push(migration.id);
    }
    return done;
  });
};
