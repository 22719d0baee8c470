import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';

/** Advisory lock class (with hashtext(schema) as key) a running rebuild holds on its scratch schema. */
export const REBUILD_LOCK_CLASS = 7305002;

export const isScratchSchema = (name: string): boolean => /^rebuild_[a-z0-9_]+$/.test(name);

/**
 * Drops the scratch schemas and scratch checkpoint rows of rebuilds that died without cleaning up
 * (SIGKILL, power loss), returning the schemas dropped. A running rebuild holds a session advisory
 * lock on its schema, so it is left alone; a dead one's lock went with its connection. (PGlite is
 * one session and one process: there a rebuild never runs beside this, so every leftover is dead.)
 */
export const cleanRebuildLeftovers = async (pool: DatabasePool): Promise<string[]> => {
  const schemas = await pool.anyFirst(sql.type(z.object({ nspname: z.string() }))`
    SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%'`);
  const rows = await pool.anyFirst(sql.type(z.object({ name: z.string() }))`
    SELECT name FROM projection_checkpoints WHERE name LIKE '%@rebuild\\_%'`);
  const candidates = [...new Set([...schemas, ...rows.map((name) => name.slice(name.lastIndexOf('@') + 1))])].filter(isScratchSchema);
  if (candidates.length === 0) return [];
  return pool.connect(async (conn) => {
    const dropped: string[] = [];
    for (const schema of candidates) {
      const free = await conn.oneFirst(sql.type(z.object({ free: z.boolean() }))`
        SELECT pg_try_advisory_lock(${REBUILD_LOCK_CLASS}, hashtext(${schema})) AS free`);
      if (!free) continue;
      try {
        await conn.query(sql.unsafe`DROP SCHEMA IF EXISTS ${sql.identifier([schema])} CASCADE`);
        await conn.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE split_part(name, '@', 2) = ${schema}`);
        dropped.push(schema);
      } finally {
        await conn.query(sql.unsafe`SELECT pg_advisory_unlock(${REBUILD_LOCK_CLASS}, hashtext(${schema}))`);
      }
    }
    return dropped;
  });
};
